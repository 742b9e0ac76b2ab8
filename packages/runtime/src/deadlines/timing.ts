/**
 * Timeouts have two sides. The receiver answers `timeout` a little before its deadline (the
 * margin), so its answer arrives in time; the sender's watchdog waits a little past it (the
 * grace) before it gives up on the child and records `timeout` itself.
 */
export const TIMEOUT_GRACE_MS = 500;

/** The receiver's margin: a tenth of the timeout, at most 250 ms. */
export function receiverMarginMs(timeoutMs: number): number {
  return Math.min(250, Math.floor(timeoutMs / 10));
}

/** A delegation's hard deadline: sent at `sentAt`, answer within `timeoutMs`. */
export function deadlineOf(sentAt: number, timeoutMs: number | null): number | null {
  return timeoutMs === null ? null : sentAt + timeoutMs;
}
