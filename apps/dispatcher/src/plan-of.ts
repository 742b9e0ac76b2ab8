import { checkedPlan, DEFAULT_TASK_TYPE, wholeObjectivePlan } from '@tierflow/runtime/policy';
import { type Plan } from '@tierflow/runtime';
import { COMPOSITION_KEY, compositionProblems, ERROR_TYPES, TierflowError, type DelegationPayload } from '@tierflow/protocol';

export { DEFAULT_TASK_TYPE };

/**
 * The plan a delegation carries in `task_data.plan`, or, without one, a plan of ONE subtask (the
 * whole objective, `task_data` minus `plan`) under `all_success`. Its compositions are checked
 * against `known` (see {@link checkedCompositions}). Pure.
 *
 * @throws TierflowError (permanent, code `invalid_plan`) naming every problem with the plan, or
 *   (code `composition_invalid`) with every problem of its compositions.
 */
export function planOf(payload: Pick<DelegationPayload, 'objective' | 'task_data'>, known: ReadonlySet<string> | null = null): Plan {
  const { plan } = payload.task_data;
  return checkedCompositions(plan === undefined ? wholeObjectivePlan(payload) : checkedPlan(plan, '$.task_data.plan'), known);
}

/**
 * `plan` when every archetype composition it declares holds (docs/protocol.md#attestations): a
 * subtask's `composition`, or one in its `task_data`, with shares above 0 summing to 100 % and
 * each domain a specialist of `known` or `sim` (null: the shares alone). Pure.
 *
 * @throws TierflowError (permanent, code `composition_invalid`) naming each problem at its subtask.
 */
export function checkedCompositions(plan: Plan, known: ReadonlySet<string> | null = null): Plan {
  const problems = plan.subtasks.flatMap((subtask, index) => {
    const declared: unknown = subtask.composition ?? subtask.task_data?.[COMPOSITION_KEY];
    if (declared === undefined) return [];
    return compositionProblems(declared, known).map((problem) => `subtask ${index + 1}: ${problem}`);
  });
  if (problems.length === 0) return plan;
  throw TierflowError.permanent(`invalid composition: ${problems.join('; ')}`, { code: ERROR_TYPES.compositionInvalid });
}

/** The specialists a Dispatcher's routes name: the domains a composition may draw on. */
export function knownSpecialists(routing: Readonly<Record<string, readonly string[]>>): ReadonlySet<string> {
  return new Set(Object.values(routing).flat());
}
