import type { DispatchMemo, SubtaskState } from './dispatch-memo.js';

/** The error_type a Fleet answers with when the specialist it was asked for cannot run. */
export const SPECIALIST_UNAVAILABLE = 'specialist_unavailable';

/** After a round: send some subtasks to their next specialist, or report. */
export type DispatchDecision =
  | {
      readonly kind: 'reroute';
      /** The subtask indices to delegate again, ascending. */
      readonly subtasks: readonly number[];
      /** The memo with those subtasks moved on to their next alternate. */
      readonly memo: DispatchMemo;
    }
  | { readonly kind: 'report' };

/** Seed 000 "Specialist unavailable: Dispatcher re-routes to alternate specialist", for a subtask that has one left. */
export function needsReroute(subtask: SubtaskState): boolean {
  const { result } = subtask;
  return result !== null && result.status === 'failed' && result.error_type === SPECIALIST_UNAVAILABLE && subtask.alternates.length > 0;
}

/**
 * What to do once a round is recorded in the memo. Every subtask whose latest result is a
 * `specialist_unavailable` failure and that has an alternate left goes to that alternate in a new
 * round; the others keep their results. Under first_success, once a child has won there is no
 * race left to join, so nothing is re-routed. Pure.
 */
export function decideNext(memo: DispatchMemo): DispatchDecision {
  const won = memo.strategy === 'first_success' && memo.subtasks.some((subtask) => subtask.result?.status === 'success');
  const targets = won ? [] : memo.subtasks.filter(needsReroute);
  if (targets.length === 0) return { kind: 'report' };
  const moved = new Set(targets.map((subtask) => subtask.index));
  return {
    kind: 'reroute',
    subtasks: [...moved].sort((a, b) => a - b),
    memo: {
      ...memo,
      subtasks: memo.subtasks.map((subtask) => {
        const [next, ...rest] = subtask.alternates;
        return moved.has(subtask.index) && next !== undefined ? { ...subtask, specialist: next, alternates: rest } : subtask;
      }),
    },
  };
}
