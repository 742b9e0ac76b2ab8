import { checkedPlan, DEFAULT_TASK_TYPE, wholeObjectivePlan } from '@tierflow/runtime/policy';
import { type Plan } from '@tierflow/runtime';
import type { DelegationPayload } from '@tierflow/protocol';

export { DEFAULT_TASK_TYPE };

/**
 * The plan a delegation carries in `task_data.plan`, or, without one, a plan of ONE subtask (the
 * whole objective, `task_data` minus `plan`) under `all_success`. Pure.
 *
 * @throws TierflowError (permanent, code `invalid_plan`) naming every problem with the plan.
 */
export function planOf(payload: Pick<DelegationPayload, 'objective' | 'task_data'>): Plan {
  const { plan } = payload.task_data;
  return plan === undefined ? wholeObjectivePlan(payload) : checkedPlan(plan, '$.task_data.plan');
}
