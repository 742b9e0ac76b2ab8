import { agentIdentitySchema, aggregationStrategySchema, budgetSchema, jsonObjectSchema, messageSignatureSchema, prioritySchema } from '@tierflow/protocol';
import { z } from 'zod';
import { outputSchemaField } from '../checks/output-schema-field.js';

const positiveMs = z.int().positive({ message: 'must be a positive number of milliseconds' });

/** One subtask of a plan: what the Dispatcher turns into one delegation to the Fleet. */
export const subtaskSchema = z.strictObject({
  objective: z.string().min(1),
  task_type: z.string().min(1).optional(),
  specialist_hint: z.string().min(1).optional(),
  timeout_ms: positiveMs.optional(),
  constraints: z.array(z.string()).optional(),
  task_data: jsonObjectSchema.optional(),
  /** A JSON Schema the Fleet's outcome must match (docs/protocol.md#expected-output-schemas); checked to compile when the file is read. */
  expected_output_schema: outputSchemaField.optional(),
  /** Pins the exact agent (docs/protocol.md#target-agents): the Fleet refuses the subtask when it runs anything else. */
  target_agent: agentIdentitySchema.optional(),
});
export type Subtask = z.infer<typeof subtaskSchema>;

/** How the work is split and how the pieces are combined. */
export const planSchema = z.strictObject({
  strategy: aggregationStrategySchema,
  subtasks: z.array(subtaskSchema).min(1, { message: 'a plan needs at least one subtask' }),
});
export type Plan = z.infer<typeof planSchema>;

/**
 * The objective file, the user's input to `tierflow enqueue`. Strict: a misspelt field is an
 * error rather than silently ignored. `task_data` is free-form apart from `plan`.
 */
export const objectiveFileSchema = z.strictObject({
  objective: z.string().min(1),
  constraints: z.array(z.string()).optional(),
  priority: prioritySchema.optional(),
  timeout_ms: positiveMs.optional(),
  task_data: z.looseObject({ plan: planSchema.optional() }).optional(),
  /** The most the run may spend on model calls (docs/operations.md#usage-prices-and-budgets); the deployment's default when left out. */
  budget: budgetSchema.optional(),
});
export type ObjectiveFile = z.infer<typeof objectiveFileSchema>;

/** What waits on the Monitor's queue: an objective with its root id. */
export const rootObjectiveSchema = z.strictObject({
  kind: z.literal('root'),
  root_id: z.string().min(1),
  submitted_at: z.iso.datetime({ offset: true }),
  objective: objectiveFileSchema,
  /** Set by a client of a deployment that signs: an Ed25519 signature over this record without it, like a message's (docs/protocol.md#message-signatures). */
  signature: messageSignatureSchema.optional(),
});
export type RootObjective = z.infer<typeof rootObjectiveSchema>;
