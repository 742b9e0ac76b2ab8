import { z } from 'zod';
import { agentIdentitySchema } from '../agent-identity.js';
import { beadsRefSchema } from '../identifiers.js';
import { errorPolicySchema } from '../error-policy.js';
import { handoffConstraintsSchema } from '../handoff-metadata.js';
import { jsonObjectSchema } from '../json.js';

/** Priorities run from 0 (critical) to 4 (backlog); a delegation that names none is normal (2). */
export const DEFAULT_PRIORITY = 2;

export const prioritySchema = z.int().min(0, { message: 'must be between 0 (critical) and 4 (backlog)' }).max(4, { message: 'must be between 0 (critical) and 4 (backlog)' });

/** Work assigned by a higher tier to the tier below it (docs/protocol.md#delegation-payload). */
export const delegationPayloadSchema = z
  .looseObject({
    task_type: z.string().min(1).meta({ description: 'What kind of work, e.g. "solve", "route", "execute".' }),
    objective: z.string().min(1).meta({ description: 'Natural language description of the goal.' }),
    constraints: z.array(z.string()).default([]).meta({ description: 'Boundaries and requirements.' }),
    context_refs: z.array(beadsRefSchema).default([]).meta({ description: 'Beads keys for relevant context.' }),
    priority: prioritySchema.default(DEFAULT_PRIORITY).meta({ description: '0 = critical … 4 = backlog; 2 when absent.' }),
    timeout_ms: z
      .int()
      .positive({ message: 'must be a positive number of milliseconds' })
      .nullable()
      .default(null)
      .meta({ description: 'Hard timeout: the receiver MUST respond before it, or answer timeout.' }),
    deadline_hint: z.string().nullable().default(null).meta({ description: 'Soft guidance for planning, not enforced.' }),
    specialist_hint: z.string().min(1).nullable().default(null).meta({ description: 'Suggested specialist, if known.' }),
    task_data: jsonObjectSchema.default({}).meta({ description: 'Structured, tier-specific task data.' }),
    expected_output_schema: jsonObjectSchema.optional().meta({ description: 'A JSON Schema (2020-12) the outcome payload must match; the receiver answers failed/format_mismatch if it does not.' }),
    target_agent: agentIdentitySchema.optional().meta({ description: 'The exact agent expected; the receiver refuses the work if it differs.' }),
    error_policy: errorPolicySchema.optional(),
    thread_id: z.string().min(1).optional().meta({ description: "The conversation or thread the work belongs to; a child delegation without one inherits its parent's." }),
    handoff: handoffConstraintsSchema.optional(),
    routing: jsonObjectSchema.optional().meta({
      description: 'How the sender chose the receiver named in specialist_hint (mode, chosen, reason, fixed, learned, expected_gain, scores): for people and traces; the receiver does not act on it.',
    }),
  })
  .meta({ description: 'Delegation (down): a higher tier assigns work to a lower tier.' });
export type DelegationPayload = z.output<typeof delegationPayloadSchema>;
export type DelegationPayloadInput = z.input<typeof delegationPayloadSchema>;
