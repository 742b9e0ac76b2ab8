import { learningRecordSchema } from '@tierflow/core';
import { artifactSchema, fastSafeParse, type JsonObject, outcomeStatusSchema, TierflowError } from '@tierflow/protocol';
import { planSchema } from '@tierflow/runtime/policy';
import { z } from 'zod';

/** A child that succeeded in an earlier round, kept for the final aggregate. */
export const keptChildSchema = z.object({
  message_id: z.string(),
  specialist: z.string(),
  status: outcomeStatusSchema,
  confidence: z.number().min(0).max(1),
  /** 1-based, within the plan it ran under. */
  subtask_index: z.int().positive(),
  /** Its outcome's words, for a revision's planner; absent from memos written before they were kept. */
  summary: z.string().optional(),
});
export type KeptChild = z.infer<typeof keptChildSchema>;

/**
 * A plan a planner's revision replaced part of (docs/protocol.md#revisions): its successes are
 * kept, and the new plan's aggregate stands for each of its `replaced` subtasks.
 */
export const outerPlanSchema = z.object({
  plan: planSchema.nullable(),
  kept: z.array(keptChildSchema),
  /** 1-based, ascending: the subtasks of `plan` the next plan in was made for. */
  replaced: z.array(z.int().positive()).min(1),
});
export type OuterPlan = z.infer<typeof outerPlanSchema>;

/** What the Architect carries between rounds (JSON, through Redis: parsed on the way back). */
export const architectMemoSchema = z.object({
  revisions: z.int().nonnegative(),
  /**
   * The plan in force, validated: the assignment's, or the one a planner's revision made; null when
   * the objective went down whole. Its subtasks carry the specialists the built-in revision has
   * avoided so far (`avoid_specialists`), so a later revision avoids them too.
   */
  plan: planSchema.nullable(),
  /**
   * The plan's subtask indices (1-based) now at the Dispatcher, in the order of the plan it was
   * given: a revised plan's subtask i is the plan's subtask `delegated[i - 1]`. `[1]` without a plan.
   */
  delegated: z.array(z.int().positive()).min(1),
  /** The plan's children that succeeded in an earlier round. */
  kept: z.array(keptChildSchema),
  /** The work artifacts of the kept children, of every plan, so the final outcome still carries them. */
  kept_artifacts: z.array(artifactSchema),
  /** The plans that planners' revisions replaced part of, outermost (the first) first; empty while none has. */
  outer: z.array(outerPlanSchema).default([]),
  /** Earlier rounds' learning records, for the final outcome to carry up (docs/operations.md#routing-modes); defaults: memos written before them. */
  learning: z.array(learningRecordSchema).default([]),
  learning_dropped: z.int().nonnegative().default(0),
  /** Why earlier rounds' outcomes surprised. */
  surprises: z.array(z.string()).default([]),
});
export type ArchitectMemo = z.infer<typeof architectMemoSchema>;

/** The memo of a first delegation. */
export function initialMemo(plan: ArchitectMemo['plan']): ArchitectMemo {
  const delegated = plan ? plan.subtasks.map((_, i) => i + 1) : [1];
  return { revisions: 0, plan, delegated, kept: [], kept_artifacts: [], outer: [], learning: [], learning_dropped: 0, surprises: [] };
}

/** @throws TierflowError (permanent, code `invalid_memo`) when the memo is not one this Architect wrote. */
export function readMemo(memo: JsonObject): ArchitectMemo {
  const parsed = fastSafeParse(architectMemoSchema, memo);
  if (!parsed.success) throw TierflowError.permanent(`invalid architect memo: ${parsed.error.message}`, { code: 'invalid_memo' });
  return parsed.data;
}
