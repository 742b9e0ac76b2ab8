import {
  agentIdentitySchema,
  aggregationStrategySchema,
  budgetSchema,
  errorPolicySchema,
  handoffConstraintsSchema,
  jsonObjectSchema,
  messageSignatureSchema,
  prioritySchema,
} from '@tierflow/protocol';
import { z } from 'zod';
import { outputSchemaField } from './output-schema-field.js';
import { dependencyProblems } from './plan-dependencies.js';

const positiveMs = z.int().positive({ message: 'must be a positive number of milliseconds' });

/** The `task_data` key a root's acceptance criteria travel under (the delegation payload has no field for them). */
export const ACCEPTANCE_CRITERIA_KEY = 'acceptance_criteria';

/** When the work is due, as planning guidance (not enforced: `timeout_ms` is): an ISO 8601 date (`2026-03-01`) or date-time with an offset (`2026-03-01T17:00:00Z`). */
export const deadlineHintSchema = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], { error: 'must be an ISO 8601 date (2026-03-01) or date-time with an offset (2026-03-01T17:00:00Z)' })
  .meta({ description: 'When the work is due: an ISO 8601 date or date-time with an offset. Guidance for planning; timeout_ms is what is enforced.' });

/** What the work must satisfy to count as done, one statement each: the planners see them, and so may a check of the result. */
export const acceptanceCriteriaSchema = z
  .array(z.string().trim().min(1, { message: 'must not be blank' }))
  .min(1, { message: 'needs at least one criterion, or leave the field out' })
  .max(100)
  .meta({ description: 'What the work must satisfy to count as done, one statement each.' });

/** Handoff constraints as a file gives them (docs/protocol.md#handoff-metadata): strict, so a misspelt flag is an error. */
const handoffField = z.strictObject(handoffConstraintsSchema.shape);

/** One subtask of a plan: what the Dispatcher turns into one delegation to the Fleet. */
export const subtaskSchema = z.strictObject({
  objective: z.string().min(1),
  task_type: z.string().min(1).optional(),
  specialist_hint: z.string().min(1).optional(),
  /**
   * How binding `specialist_hint` is (docs/operations.md#routing-modes): `require` (the default) sends
   * the subtask to the hinted specialist; `prefer` makes it the fixed pick, which learned routing may pass over.
   */
  specialist_hint_mode: z.enum(['require', 'prefer']).optional(),
  /** Specialists not to route this subtask to unless no other candidate is left (a revision sets it for those that failed). */
  avoid_specialists: z.array(z.string().min(1)).optional(),
  timeout_ms: positiveMs.optional(),
  constraints: z.array(z.string()).optional(),
  task_data: jsonObjectSchema.optional(),
  /** A JSON Schema the Fleet's outcome must match (docs/protocol.md#expected-output-schemas); checked to compile when the file is read. */
  expected_output_schema: outputSchemaField.optional(),
  /** Pins the exact agent (docs/protocol.md#target-agents): the Fleet refuses the subtask when it runs anything else. */
  target_agent: agentIdentitySchema.optional(),
  /** What to do when this subtask's work goes wrong (docs/protocol.md#error-policies), over the plan's. */
  error_policy: errorPolicySchema.optional(),
  /** This subtask's handoff constraints, over the run's (docs/protocol.md#handoff-metadata). */
  handoff: handoffField.optional(),
  /**
   * The subtasks (1-based, in the same plan) whose work this one takes as its input: it is sent once
   * they have all succeeded, with their work in `task_data.upstream` (docs/protocol.md#subtask-dependencies).
   */
  depends_on: z.array(z.int()).optional(),
  /**
   * The archetype this subtask's specialist is composed as: each domain specialist with its share
   * in percent, above 0 and summing to 100 (docs/protocol.md#attestations). It travels in the
   * delegation's `task_data.composition`, which the attestation vouches for. Its shape is checked
   * here; its rules where the plan is read, which refuses it as `composition_invalid` with the reason.
   */
  composition: z.record(z.string(), z.number()).optional().meta({ description: 'An archetype: domain specialist → share in percent, each above 0, summing to 100; checked where the plan is read.' }),
});
export type Subtask = z.infer<typeof subtaskSchema>;

/** How the work is split and how the pieces are combined; its dependencies are checked with it, each problem at its own path. */
export const planSchema = z
  .strictObject({
    strategy: aggregationStrategySchema,
    subtasks: z.array(subtaskSchema).min(1, { message: 'a plan needs at least one subtask' }),
    /** Every subtask's error policy, field by field, unless the subtask sets its own (docs/protocol.md#error-policies). */
    error_policy: errorPolicySchema.optional(),
  })
  .superRefine((plan, context) => {
    for (const problem of dependencyProblems(plan)) context.addIssue({ code: 'custom', path: [...problem.path], message: problem.message, params: { rule: problem.rule } });
  });
export type Plan = z.infer<typeof planSchema>;

/**
 * The objective file, the user's input to `tierflow enqueue`. Strict: a misspelt field is an
 * error rather than silently ignored. `task_data` is free-form apart from `plan`.
 */
export const objectiveFileSchema = z.strictObject({
  /** Where an editor finds this file's JSON Schema (`tierflow schema objective`); not sent with the run. */
  $schema: z.string().optional(),
  objective: z.string().min(1),
  constraints: z.array(z.string()).optional(),
  priority: prioritySchema.optional(),
  timeout_ms: positiveMs.optional(),
  task_data: z.looseObject({ plan: planSchema.optional() }).optional(),
  /** The most the run may spend on model calls (docs/operations.md#usage-prices-and-budgets); the deployment's default when left out. */
  budget: budgetSchema.optional(),
  /** The whole run's error policy, handed down to every delegation that sets none of its own (docs/protocol.md#error-policies). */
  error_policy: errorPolicySchema.optional(),
  /** When the work is due (docs/operations.md#the-objective-file): the root delegation's `deadline_hint`, which the planners see. */
  deadline_hint: deadlineHintSchema.optional(),
  /** What the work must satisfy: `task_data.acceptance_criteria` of the root delegation, which the planners see. */
  acceptance_criteria: acceptanceCriteriaSchema.optional(),
  /** The conversation or thread the run belongs to, carried by every delegation of it (docs/protocol.md#handoff-metadata). */
  thread_id: z.string().min(1).optional(),
  /** Handoff constraints handed down to every delegation of the run, field by field under its own (docs/protocol.md#handoff-metadata). */
  handoff: handoffField.optional(),
});
export type ObjectiveFile = z.infer<typeof objectiveFileSchema>;

/** What waits on the Monitor's queue: an objective with its root id. */
export const rootObjectiveSchema = z.strictObject({
  kind: z.literal('root'),
  root_id: z.string().min(1),
  submitted_at: z.iso.datetime({ offset: true }),
  objective: objectiveFileSchema,
  /** The run this one reruns (`tierflow rerun`, docs/operations.md#rerun-fork-and-replay); covered by the signature like the rest. */
  rerun_of: z.string().min(1).optional(),
  /** Set by a client of a deployment that signs: an Ed25519 signature over this record without it, like a message's (docs/protocol.md#message-signatures). */
  signature: messageSignatureSchema.optional(),
});
export type RootObjective = z.infer<typeof rootObjectiveSchema>;
