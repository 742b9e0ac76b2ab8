import type { DelegationPayload } from '@tierflow/protocol';
import type { DelegationDraft } from '@tierflow/runtime';

/** The task_type of the Monitor → Architect delegation (docs/protocol.md#delegation-payload). */
export const SOLVE = 'solve';

/** The one delegation to the Architect: the root objective as it came (its deadline hint for the planner), under the root's own timeout or the default. Pure. */
export function architectDraft(
  root: Pick<DelegationPayload, 'objective' | 'constraints' | 'priority' | 'timeout_ms' | 'task_data'> & Partial<Pick<DelegationPayload, 'deadline_hint'>>,
  architectTimeoutMs: number,
): DelegationDraft {
  return {
    task_type: SOLVE,
    objective: root.objective,
    constraints: [...root.constraints],
    priority: root.priority,
    timeout_ms: root.timeout_ms ?? architectTimeoutMs,
    ...(root.deadline_hint ? { deadline_hint: root.deadline_hint } : {}),
    task_data: root.task_data,
  };
}
