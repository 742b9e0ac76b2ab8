import { resolveRetryOptions, type RetryOptions } from '@tierflow/core';
import { isTierflowError } from '@tierflow/protocol';
import pRetry from 'p-retry';

export interface CallWithRetryOptions {
  /** Stop retrying (and waiting) when this fires: pass the handler's `context.signal`. */
  readonly signal?: AbortSignal;
  /** Attempts and back-off; the runtime's defaults (3 tries, 200 ms doubling, capped at 30 s) when left out. */
  readonly retry?: Partial<RetryOptions>;
}

/**
 * For a handler that calls something outside the queue (a model endpoint, an HTTP API): retries
 * the call in place with exponential back-off and jitter, as the queue would retry the job, but
 * without giving up the job's slot or redoing the work before the call. A permanent
 * `TierflowError` is not retried; cancellation or a deadline (through `signal`) stops at once.
 *
 * ```ts
 * const text = await callWithRetry(() => model.complete(prompt), { signal: context.signal });
 * ```
 */
export async function callWithRetry<T>(call: (attempt: number) => Promise<T>, options: CallWithRetryOptions = {}): Promise<T> {
  const retry = resolveRetryOptions(options.retry);
  return pRetry(call, {
    retries: retry.attempts - 1,
    factor: 2,
    minTimeout: retry.baseDelayMs,
    maxTimeout: retry.maxDelayMs,
    randomize: retry.jitter > 0,
    ...(options.signal ? { signal: options.signal } : {}),
    shouldRetry: ({ error }) => !(isTierflowError(error) && !error.retryable),
  });
}
