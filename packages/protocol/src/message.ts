import { z } from 'zod';
import { attestationSchema } from './attestation.js';
import { messageIdSchema, timestampSchema } from './identifiers.js';
import { isJsonObject, whenObject } from './json.js';
import { cancellationPayloadSchema } from './payloads/cancellation.js';
import { delegationPayloadSchema } from './payloads/delegation.js';
import { outcomePayloadSchema } from './payloads/outcome.js';
import { messageSignatureSchema } from './signature.js';
import { isTierName, TIER_LEVELS, tierNameSchema } from './tiers.js';
import { versionSchema } from './version.js';

export const MESSAGE_KINDS = ['delegation', 'outcome', 'cancellation'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/**
 * Which way each kind of message may travel between tiers, by level: a delegation goes strictly
 * down, an outcome strictly up, and a cancellation never up (a tier may cancel work it holds
 * itself, as the Monitor does for a root when an operator asks).
 */
const DIRECTION_RULES: Record<MessageKind, { allows: (source: number, target: number) => boolean; words: string }> = {
  delegation: { allows: (source, target) => source > target, words: 'a delegation must go down: source_tier above target_tier' },
  outcome: { allows: (source, target) => source < target, words: 'an outcome must go up: source_tier below target_tier' },
  cancellation: {
    allows: (source, target) => source >= target,
    words: 'a cancellation must not go up: source_tier at or above target_tier',
  },
};

function envelopeSchema<P extends z.ZodType>(kind: MessageKind, payload: P) {
  return z
    .looseObject({
      version: versionSchema,
      id: messageIdSchema,
      timestamp: timestampSchema.meta({ description: 'When the message was created.' }),
      source_tier: tierNameSchema.meta({ description: 'Who sent this.' }),
      target_tier: tierNameSchema.meta({ description: 'Who receives this.' }),
      correlation_id: messageIdSchema.nullable().default(null).meta({ description: 'Links to the originating request.' }),
      payload,
      signature: messageSignatureSchema.optional().meta({ description: 'Ed25519 signature over the canonical message; required by deployments that sign.' }),
      attestation: attestationSchema.optional().meta({ description: "The sender's governance attestation of this handoff; required by deployments that require governance." }),
    })
    .superRefine(
      (message, ctx) => {
        const { source_tier: source, target_tier: target } = message;
        if (!isTierName(source) || !isTierName(target)) return;
        const rule = DIRECTION_RULES[kind];
        if (!rule.allows(TIER_LEVELS[source], TIER_LEVELS[target])) {
          ctx.addIssue({
            code: 'custom',
            path: ['target_tier'],
            message: `${rule.words}; got ${source} (${TIER_LEVELS[source]}) → ${target} (${TIER_LEVELS[target]})`,
            params: { rule: 'direction' },
          });
        }
      },
      { when: whenObject },
    );
}

export const delegationMessageSchema = envelopeSchema('delegation', delegationPayloadSchema).meta({
  title: 'DelegationMessage',
  description: 'A delegation in the common envelope: a higher tier assigns work to a lower tier.',
});
export const outcomeMessageSchema = envelopeSchema('outcome', outcomePayloadSchema).meta({
  title: 'OutcomeMessage',
  description: 'An outcome in the common envelope: a lower tier reports to the tier above.',
});
export const cancellationMessageSchema = envelopeSchema('cancellation', cancellationPayloadSchema).meta({
  title: 'CancellationMessage',
  description: 'A cancellation in the common envelope: a tier aborts in-flight work below it.',
});

/** Any protocol message. `validate()` picks the kind from the payload and reports precise errors. */
export const messageSchema = z
  .union([delegationMessageSchema, outcomeMessageSchema, cancellationMessageSchema])
  .meta({ title: 'Message', description: 'A Tierflow handoff protocol message: one envelope around one payload.' });

export type DelegationMessage = z.output<typeof delegationMessageSchema>;
export type OutcomeMessage = z.output<typeof outcomeMessageSchema>;
export type CancellationMessage = z.output<typeof cancellationMessageSchema>;
export type Message = DelegationMessage | OutcomeMessage | CancellationMessage;
export type DelegationMessageInput = z.input<typeof delegationMessageSchema>;
export type OutcomeMessageInput = z.input<typeof outcomeMessageSchema>;
export type CancellationMessageInput = z.input<typeof cancellationMessageSchema>;

export const MESSAGE_SCHEMAS = {
  delegation: delegationMessageSchema,
  outcome: outcomeMessageSchema,
  cancellation: cancellationMessageSchema,
} as const;

/**
 * Tells a payload's kind by the field that only it has: `status` (outcome), `target_message_id`
 * (cancellation), `task_type` or `objective` (delegation). Returns null when none is present.
 */
export function payloadKind(payload: unknown): MessageKind | null {
  if (!isJsonObject(payload)) return null;
  if ('status' in payload) return 'outcome';
  if ('target_message_id' in payload) return 'cancellation';
  if ('task_type' in payload || 'objective' in payload) return 'delegation';
  return null;
}

export function messageKind(message: Message): MessageKind {
  // A parsed message always has a recognisable payload.
  return payloadKind(message.payload) ?? 'delegation';
}

export function isDelegation(message: Message): message is DelegationMessage {
  return messageKind(message) === 'delegation';
}
export function isOutcome(message: Message): message is OutcomeMessage {
  return messageKind(message) === 'outcome';
}
export function isCancellation(message: Message): message is CancellationMessage {
  return messageKind(message) === 'cancellation';
}
