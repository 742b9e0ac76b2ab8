import type { DelegationPayload, JsonObject } from '@tierflow/protocol';
import type { DelegationDraft } from '@tierflow/runtime';

/** The task_type of every Architect → Dispatcher delegation (docs/protocol.md#delegation-payload). */
export const DECOMPOSE_AND_SOLVE = 'decompose_and_solve';

/** What the one Dispatcher delegation is made of. */
export interface DispatcherDraftInput {
  /** The Architect's delegation: its deadline hint goes down too, for the Dispatcher's decomposer. */
  readonly parent: Pick<DelegationPayload, 'objective' | 'constraints' | 'priority'> & Partial<Pick<DelegationPayload, 'deadline_hint'>>;
  /** The parent's task_data on the first try; with a revised plan on a revision. */
  readonly taskData: JsonObject;
  readonly timeoutMs: number;
  readonly contextRefs: readonly string[];
}

/** The delegation to the Dispatcher. Pure. */
export function dispatcherDraft(input: DispatcherDraftInput): DelegationDraft {
  const { parent, taskData, timeoutMs, contextRefs } = input;
  return {
    task_type: DECOMPOSE_AND_SOLVE,
    objective: parent.objective,
    constraints: [...parent.constraints],
    priority: parent.priority,
    timeout_ms: timeoutMs,
    ...(parent.deadline_hint ? { deadline_hint: parent.deadline_hint } : {}),
    context_refs: [...contextRefs],
    task_data: taskData,
  };
}
