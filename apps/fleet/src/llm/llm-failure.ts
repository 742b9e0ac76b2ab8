/** What to do about a failed model call. */
export type LlmFailure =
  /** Busy, and it said when to come back, in time: wait and call again. */
  | { readonly kind: 'wait'; readonly ms: number }
  /** Busy with no time to wait: answer `throttled`, so the Dispatcher backs off or routes elsewhere. */
  | { readonly kind: 'throttled' }
  /** The model is not served there: answer `specialist_unavailable`. */
  | { readonly kind: 'unavailable' }
  /** Worth another try later: the runtime retries with back-off. */
  | { readonly kind: 'retryable' }
  /** The same request cannot succeed: fail now. */
  | { readonly kind: 'permanent' };

/** Statuses that say "busy": the server may name, in Retry-After, when to come back. */
const BUSY = new Set([429, 503]);
/** How many times one call waits out Retry-After before it answers `throttled`. */
export const MAX_RETRY_AFTER_WAITS = 3;

/**
 * Pure. `status` is the HTTP status (undefined: no answer at all, a connection error);
 * `remainingMs` the time left before the sender's deadline (null: none known); `waits` how many
 * times this call has waited already.
 */
export function classifyLlmFailure(status: number | undefined, retryAfterMs: number | undefined, remainingMs: number | null, waits: number): LlmFailure {
  if (status === undefined) return { kind: 'retryable' };
  if (BUSY.has(status)) {
    const fits = retryAfterMs !== undefined && (remainingMs === null || retryAfterMs < remainingMs);
    return fits && waits < MAX_RETRY_AFTER_WAITS ? { kind: 'wait', ms: retryAfterMs } : { kind: 'throttled' };
  }
  if (status === 404) return { kind: 'unavailable' };
  if (status === 408 || status === 409 || status >= 500) return { kind: 'retryable' };
  return { kind: 'permanent' };
}
