import { checkedPlan } from '@tierflow/runtime/policy';
import { type Plan } from '@tierflow/runtime';
import type { DelegationPayload } from '@tierflow/protocol';

/** The task_type of the one subtask made from an objective that came without a plan and without a string `task_data.task_type`. */
export const DEFAULT_TASK_TYPE = 'general';

/**
 * The plan a delegation carries in `task_data.plan`, or, without one, a plan of ONE subtask (the
 * whole objective, `task_data` minus `plan`) under `all_success`. Pure.
 *
 * @throws TierflowError (permanent, code `invalid_plan`) naming every problem with the plan.
 */
export function planOf(payload: Pick<DelegationPayload, 'objective' | 'task_data'>): Plan {
  const { plan, ...rest } = payload.task_data;
  if (plan !== undefined) return checkedPlan(plan, '$.task_data.plan');
  const taskType = typeof rest.task_type === 'string' && rest.task_type !== '' ? rest.task_type : DEFAULT_TASK_TYPE;
  return { strategy: 'all_success', subtasks: [{ objective: payload.objective, task_type: taskType, task_data: rest }] };
}
