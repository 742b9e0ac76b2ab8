import type { DelegationDraft, PolicyDecision, SettledChild, Subtask } from '@tierflow/runtime';
import { decisionLine, rerouteWithHistory, taskTypeOf, type HistoryOf, type RoutingSettings } from './choose-route.js';
import { subtaskIndexOf, type DispatchMemo } from './dispatch-memo.js';
import { leafReport, specialistOf, taskTypeOfRequest } from './leaf-record.js';
import type { HistoryPair } from '@tierflow/runtime/policy';

type Child = Pick<SettledChild, 'id' | 'request' | 'outcome'>;

/** The task type × specialist pairs whose history a round's settled leaves are judged by. */
export function settledPairs(children: readonly Child[]): HistoryPair[] {
  return children.flatMap((child) => {
    const specialist = specialistOf(child);
    return specialist === null ? [] : [{ taskType: taskTypeOfRequest(child.request), specialist }];
  });
}

/**
 * Adds a settled round's leaf attempts to the memo (pure): a learning record each, routed as its
 * subtask's decision says (`sentWith`, the memo the round was sent with), and a line for each
 * attempt that surprised against its specialist's history.
 */
export function learnFromRound(memo: DispatchMemo, sentWith: DispatchMemo, children: readonly Child[], history: HistoryOf): DispatchMemo {
  const learning = [...memo.learning];
  const surprises = [...memo.surprises];
  for (const child of children) {
    const index = subtaskIndexOf(child);
    const decision = sentWith.subtasks.find((subtask) => subtask.index === index)?.routing ?? null;
    const report = leafReport(child, decision, history);
    if (!report) continue;
    learning.push(report.record);
    if (report.surprise !== null) surprises.push(`subtask ${index} (${report.record.specialist}): ${report.surprise}`);
  }
  return { ...memo, learning, surprises };
}

/** The subtasks `decideNext` moved to another specialist: in `after`, with a specialist other than in `before`. */
export function reroutedIn(before: DispatchMemo, after: DispatchMemo, indices: readonly number[]): number[] {
  return indices.filter((index) => {
    const was = before.subtasks.find((subtask) => subtask.index === index)?.specialist;
    const is = after.subtasks.find((subtask) => subtask.index === index)?.specialist;
    return was !== is;
  });
}

/** The candidates left to a re-routed subtask: the specialist it moved to, then its alternates (table order). */
function leftFor(memo: DispatchMemo, index: number): string[] {
  const state = memo.subtasks.find((subtask) => subtask.index === index);
  return state ? [state.specialist, ...state.alternates] : [];
}

/** The pairs whose history choosing among a re-routed subtask's candidates weighs: none when the table decides alone. */
export function reroutePairs(plan: { readonly subtasks: readonly Subtask[] }, memo: DispatchMemo, indices: readonly number[], settings: Pick<RoutingSettings, 'mode'>): HistoryPair[] {
  return indices.flatMap((index) => {
    const subtask = plan.subtasks[index - 1];
    if (!subtask || (settings.mode === 'fixed' && (subtask.avoid_specialists ?? []).length === 0)) return [];
    return leftFor(memo, index).map((specialist) => ({ taskType: taskTypeOf(subtask), specialist }));
  });
}

/** Each re-routed subtask sent to the best of its candidates left, chosen as its first route was, with that decision. Pure. */
export function rerouteRound(plan: { readonly subtasks: readonly Subtask[] }, memo: DispatchMemo, indices: readonly number[], settings: RoutingSettings, history: HistoryOf): DispatchMemo {
  const moved = new Set(indices);
  return {
    ...memo,
    subtasks: memo.subtasks.map((state) => {
      const subtask = plan.subtasks[state.index - 1];
      if (!moved.has(state.index) || !subtask) return state;
      const { route, decision } = rerouteWithHistory(subtask, leftFor(memo, state.index), settings, history);
      return { ...state, specialist: route.specialist, alternates: [...route.alternates], routing: decision };
    }),
  };
}

/** The audit entries of a round: for each child, by its place in the round, the decision that routed its subtask. */
export function routingDecisions(memo: DispatchMemo, children: readonly Pick<DelegationDraft, 'task_data'>[]): PolicyDecision[] {
  return children.flatMap((draft, child) => {
    const index = draft.task_data?.subtask_index;
    const decision = memo.subtasks.find((subtask) => subtask.index === index)?.routing;
    return decision ? [{ child, detail: decisionLine(decision), data: decision }] : [];
  });
}
