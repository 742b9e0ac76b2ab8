import { backoffDelay, type RetryOptions } from '@tierflow/core';
import { ERROR_TYPES, ROUTABLE_ERROR_TYPES } from '@tierflow/protocol';
import type { DispatchMemo, SubtaskState } from './dispatch-memo.js';

/** The error_type (and status) of a Fleet at its concurrency limit. */

/** After a round: send some subtasks again (to their next specialist, or after a back-off), or report. */
export type DispatchDecision =
  | {
      readonly kind: 'reroute';
      /** The subtask indices to delegate again, ascending. */
      readonly subtasks: readonly number[];
      /** The memo with those subtasks moved on to their next alternate, or counted as throttled once more. */
      readonly memo: DispatchMemo;
      /** How long to hold the round back: the longest back-off among its throttled subtasks. */
      readonly delayMs: number;
      /** Timeouts for subtasks tried again, so they keep their first deadline. */
      readonly timeouts: Readonly<Record<number, number>>;
    }
  | { readonly kind: 'report' };

/** How a throttled subtask is tried again: back off, at most `attempts` times, within its deadline. */
export interface ThrottlePolicy {
  readonly retry: RetryOptions;
  readonly now: number;
  readonly random: () => number;
}

/** Below this much time left, a retry could not finish in time, so the subtask stays throttled. */
const MIN_TIME_LEFT_MS = 50;

/**
 * An unavailable specialist's subtask is re-routed to an alternate (docs/protocol.md#escalation),
 * for a subtask that has one left; an agent the Fleet does not register, or one that rejected the
 * work, is routed around the same way.
 */
export function needsReroute(subtask: SubtaskState): boolean {
  return isRoutable(subtask) && subtask.alternates.length > 0;
}

/** Work under the cascade's flag bound whose policy says retry (docs/protocol.md#error-policies), not yet sent again: once more, to the same specialist, with the concern. */
export function needsConcernRetry(subtask: SubtaskState): boolean {
  return subtask.result?.error_type === ERROR_TYPES.lowConfidenceRetry && subtask.concern === null;
}

const ROUTABLE: ReadonlySet<string> = new Set(Object.values(ROUTABLE_ERROR_TYPES));

function isRoutable(subtask: SubtaskState): boolean {
  const { result } = subtask;
  return result !== null && result.status === 'failed' && ROUTABLE.has(result.error_type ?? '');
}

/**
 * What to do once a round is recorded in the memo (pure):
 * - a subtask whose specialist was unavailable goes to its next alternate;
 * - a subtask whose work came back under the cascade's flag bound with `on_low_confidence: retry`
 *   goes once more to the same specialist, its concern attached (`task_data.concern`);
 * - a throttled subtask goes to its next alternate if it has one, else to the same specialist
 *   after an exponential back-off, while retries and time before its deadline remain;
 * - the others keep their results.
 * Under first_success, once a child has won there is no race left to join, so nothing is sent again.
 */
export function decideNext(memo: DispatchMemo, throttle?: ThrottlePolicy): DispatchDecision {
  const won = memo.strategy === 'first_success' && memo.subtasks.some((subtask) => subtask.result?.status === 'success');
  if (won) return { kind: 'report' };
  const moved = new Map<number, SubtaskState>();
  const timeouts: Record<number, number> = {};
  let delayMs = 0;
  for (const subtask of memo.subtasks) {
    const [next, ...rest] = subtask.alternates;
    if (needsReroute(subtask) || (isThrottled(subtask) && next !== undefined)) {
      moved.set(subtask.index, { ...subtask, specialist: next!, alternates: rest });
    } else if (needsConcernRetry(subtask)) {
      moved.set(subtask.index, { ...subtask, concern: subtask.result!.error_detail ?? 'low confidence' });
    } else if (isThrottled(subtask) && throttle) {
      const tries = subtask.throttles + 1;
      if (tries >= throttle.retry.attempts) continue;
      const wait = backoffDelay(tries, throttle.retry, throttle.random);
      const left = subtask.deadline === null ? null : subtask.deadline - throttle.now - wait;
      if (left !== null && left < MIN_TIME_LEFT_MS) continue;
      moved.set(subtask.index, { ...subtask, throttles: tries });
      if (subtask.deadline !== null) timeouts[subtask.index] = subtask.deadline - throttle.now;
      delayMs = Math.max(delayMs, wait);
    }
  }
  if (moved.size === 0) return { kind: 'report' };
  return {
    kind: 'reroute',
    subtasks: [...moved.keys()].sort((a, b) => a - b),
    memo: { ...memo, subtasks: memo.subtasks.map((subtask) => moved.get(subtask.index) ?? subtask) },
    delayMs,
    timeouts,
  };
}

function isThrottled(subtask: SubtaskState): boolean {
  return subtask.result?.status === 'throttled';
}
