import { tallySentence, type SubtaskTally } from '@tierflow/core';
import { ERROR_TYPES, isTierflowError, type TimeoutPolicy } from '@tierflow/protocol';
import { UnrecoverableError } from 'bullmq';
import type { OutcomeDraft, SettledChild } from '../policy/handler.js';
import type { StopReason } from '../cancellation/control-listener.js';

/** Permanent: retrying cannot help (docs/protocol.md#retries). Unknown errors are taken as transient. */
export function isPermanent(error: unknown): boolean {
  return error instanceof UnrecoverableError || (isTierflowError(error) && !error.retryable);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The failed outcome a handler's error becomes once it will not be retried. */
export function failureDraft(error: unknown, attempts: number): OutcomeDraft {
  const detail = messageOf(error);
  if (isPermanent(error)) {
    return {
      status: 'failed',
      summary: `failed: ${detail}`,
      confidence: 0,
      error_type: isTierflowError(error) ? error.code : ERROR_TYPES.permanentError,
      error_detail: detail,
      recoverable: false,
    };
  }
  return {
    status: 'failed',
    summary: `failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${detail}`,
    confidence: 0,
    error_type: ERROR_TYPES.retriesExhausted,
    error_detail: detail,
    recoverable: true,
  };
}

/**
 * The answer of work stopped early, cancelled or out of time: it carries what partial results
 * there are (docs/protocol.md#cancellation-semantics): the artifacts of every child that did not
 * fail, so what a stopped child had gathered from below comes up a level more, to the root.
 * Out of time with `on_timeout: partial_result` and some child succeeded, the answer is that
 * partial result: `partial`, not recoverable, for the sender to use rather than escalate
 * (docs/protocol.md#error-policies). `delegated` is how many children this round sent; the
 * summary counts `below` (the subtasks of every round, as the run's tree shows them), or this
 * round's children without it.
 */
export function stoppedDraft(stop: StopReason, settled: readonly SettledChild[] = [], delegated = 0, onTimeout: TimeoutPolicy = 'escalate', below?: SubtaskTally): OutcomeDraft {
  const succeeded = settled.filter((child) => child.outcome.payload.status === 'success');
  const kept = settled.filter((child) => child.outcome.payload.status !== 'failed');
  const progress = tallySentence(below ?? { delegated, succeeded: succeeded.length });
  if (stop.status === 'timeout' && onTimeout === 'partial_result' && succeeded.length > 0) {
    return {
      status: 'partial',
      summary: `partial result, out of time: ${stop.reason}${progress}`,
      confidence: Math.min(...succeeded.map((child) => child.outcome.payload.confidence)) * (succeeded.length / Math.max(delegated, succeeded.length)),
      error_type: ERROR_TYPES.timeout,
      error_detail: stop.reason,
      recoverable: false,
      artifacts: kept.flatMap((child) => child.outcome.payload.artifacts),
    };
  }
  return {
    status: stop.status,
    summary: `${stop.status === 'timeout' ? 'timed out' : 'cancelled'}: ${stop.reason}${progress}`,
    confidence: 0,
    error_type: stop.errorType ?? stop.status,
    error_detail: stop.reason,
    recoverable: stop.status === 'timeout',
    artifacts: kept.flatMap((child) => child.outcome.payload.artifacts),
  };
}
