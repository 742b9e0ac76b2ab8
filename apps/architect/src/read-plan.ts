import type { JsonObject } from '@tierflow/protocol';
import { checkedPlan, type Plan } from '@tierflow/runtime';

/**
 * The plan in `task_data.plan`, validated, or null when there is none. The Architect checks it
 * before delegating, so a bad plan fails at once instead of one tier further down. Pure.
 *
 * @throws TierflowError (permanent, code `invalid_plan`) naming every problem with the plan.
 */
export function readPlan(taskData: JsonObject): Plan | null {
  return taskData.plan === undefined ? null : checkedPlan(taskData.plan, '$.task_data.plan');
}

/**
 * The plan cut down to some of its subtasks (1-based indices, in the order given), under the same
 * strategy: what a revision re-delegates. Pure.
 */
export function revisedPlan(plan: Plan, indices: readonly number[]): Plan {
  const subtasks = indices.flatMap((index) => {
    const subtask = plan.subtasks[index - 1];
    return subtask ? [subtask] : [];
  });
  return { strategy: plan.strategy, subtasks };
}
