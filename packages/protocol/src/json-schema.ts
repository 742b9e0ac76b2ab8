import { z } from 'zod';
import { agentIdentitySchema } from './agent-identity.js';
import { attestationSchema, compositionSchema } from './attestation.js';
import { aggregatedOutcomeSchema, aggregationStrategySchema, childOutcomeSummarySchema, parallelDelegationSchema } from './aggregation.js';
import { artifactSchema } from './artifact.js';
import { evidenceGradeSchema } from './evidence-grade.js';
import { cancellationMessageSchema, delegationMessageSchema, messageSchema, outcomeMessageSchema } from './message.js';
import { cancellationPayloadSchema } from './payloads/cancellation.js';
import { delegationPayloadSchema } from './payloads/delegation.js';
import { outcomePayloadSchema } from './payloads/outcome.js';
import { messageSignatureSchema } from './signature.js';
import { outcomeStatusSchema } from './statuses.js';
import { tierNameSchema } from './tiers.js';
import { upstreamWorkSchema } from './upstream.js';
import { usageSchema } from './usage.js';

/** Every wire type, by the name used for its JSON Schema file and for `tierflow schema <type>`. */
export const WIRE_TYPES = {
  message: messageSchema,
  'delegation-message': delegationMessageSchema,
  'outcome-message': outcomeMessageSchema,
  'cancellation-message': cancellationMessageSchema,
  'delegation-payload': delegationPayloadSchema,
  'outcome-payload': outcomePayloadSchema,
  'cancellation-payload': cancellationPayloadSchema,
  artifact: artifactSchema,
  'tier-level': tierNameSchema,
  'outcome-status': outcomeStatusSchema,
  'aggregation-strategy': aggregationStrategySchema,
  'parallel-delegation': parallelDelegationSchema,
  'child-outcome-summary': childOutcomeSummarySchema,
  'aggregated-outcome': aggregatedOutcomeSchema,
  'message-signature': messageSignatureSchema,
  'agent-identity': agentIdentitySchema,
  'governance-attestation': attestationSchema,
  composition: compositionSchema,
  usage: usageSchema,
  'evidence-grade': evidenceGradeSchema,
  'upstream-work': upstreamWorkSchema,
} as const satisfies Record<string, z.ZodType>;

export type WireTypeName = keyof typeof WIRE_TYPES;
export const WIRE_TYPE_NAMES = Object.keys(WIRE_TYPES) as WireTypeName[];

export function isWireTypeName(name: string): name is WireTypeName {
  return Object.hasOwn(WIRE_TYPES, name);
}

const CROSS_FIELD_NOTE =
  'Generated from the Tierflow zod schemas. Cross-field rules (exactly one artifact content field, inline content under 1 KB, ' +
  'error fields only on error statuses, tier direction, supported major version) are checked by validate(), not by this schema.';

/**
 * The JSON Schema (draft 2020-12) of a wire type, as a sender writes it: fields with defaults are
 * optional, and unknown fields are allowed (receivers accept what a newer minor version adds).
 */
export function jsonSchemaOf(name: WireTypeName): Record<string, unknown> {
  const schema = z.toJSONSchema(WIRE_TYPES[name], { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { ...schema, $comment: CROSS_FIELD_NOTE };
}
