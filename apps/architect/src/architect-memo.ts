import { artifactSchema, fastSafeParse, type JsonObject, outcomeStatusSchema, TierflowError } from '@tierflow/protocol';
import { planSchema } from '@tierflow/runtime/policy';
import { z } from 'zod';

/** A child that succeeded in an earlier round, kept for the final aggregate. */
export const keptChildSchema = z.object({
  message_id: z.string(),
  specialist: z.string(),
  status: outcomeStatusSchema,
  confidence: z.number().min(0).max(1),
  /** 1-based, within the original plan. */
  subtask_index: z.int().positive(),
});
export type KeptChild = z.infer<typeof keptChildSchema>;

/** What the Architect carries between rounds (JSON, through Redis: parsed on the way back). */
export const architectMemoSchema = z.object({
  revisions: z.int().nonnegative(),
  /** The validated plan of the assignment, or null when it came without one. */
  plan: planSchema.nullable(),
  /**
   * The original plan's subtask indices (1-based) now at the Dispatcher, in the order of the plan it
   * was given: a revised plan's subtask i is the original subtask `delegated[i - 1]`. `[1]` without a plan.
   */
  delegated: z.array(z.int().positive()).min(1),
  kept: z.array(keptChildSchema),
  /** The work artifacts of the kept children, so the final outcome still carries them. */
  kept_artifacts: z.array(artifactSchema),
});
export type ArchitectMemo = z.infer<typeof architectMemoSchema>;

/** The memo of a first delegation. */
export function initialMemo(plan: ArchitectMemo['plan']): ArchitectMemo {
  const delegated = plan ? plan.subtasks.map((_, i) => i + 1) : [1];
  return { revisions: 0, plan, delegated, kept: [], kept_artifacts: [] };
}

/** @throws TierflowError (permanent, code `invalid_memo`) when the memo is not one this Architect wrote. */
export function readMemo(memo: JsonObject): ArchitectMemo {
  const parsed = fastSafeParse(architectMemoSchema, memo);
  if (!parsed.success) throw TierflowError.permanent(`invalid architect memo: ${parsed.error.message}`, { code: 'invalid_memo' });
  return parsed.data;
}
