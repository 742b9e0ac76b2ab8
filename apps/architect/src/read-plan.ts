import type { JsonObject } from '@tierflow/protocol';
import { checkedPlan } from '@tierflow/runtime/policy';
import { type Plan } from '@tierflow/runtime';

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
 * strategy: what a revision re-delegates. Each `depends_on` is renumbered to the cut plan's
 * indices; the caller closes `indices` over the dependencies first (`withDependencies`), and a
 * dependency left out of the cut is dropped. Pure.
 */
export function revisedPlan(plan: Plan, indices: readonly number[]): Plan {
  const kept = indices.filter((index) => plan.subtasks[index - 1] !== undefined);
  const renumbered = new Map(kept.map((index, position) => [index, position + 1]));
  const subtasks = kept.map((index) => {
    const subtask = plan.subtasks[index - 1]!;
    if (subtask.depends_on === undefined) return subtask;
    return { ...subtask, depends_on: subtask.depends_on.flatMap((dependency) => renumbered.get(dependency) ?? []) };
  });
  return { strategy: plan.strategy, subtasks };
}
