/** Why a signed message's time is refused, or null when it is within the window. */
export interface WindowRefusal {
  readonly code: 'message_stale' | 'message_from_future';
  readonly reason: string;
}

/**
 * The clock check of a signed message. It compares the message's own timestamp with its job's
 * enqueue time, not with the time it is processed: a message waits in a backlog, or a parent
 * waits for its children, for as long as it must, but it is enqueued as it is signed. A copy
 * re-added later carries a new enqueue time and falls outside. The receiver's clock only bounds
 * how far ahead a timestamp may be, so a message dated in the future cannot stretch the window.
 * Pure.
 */
export function checkMessageTime(signedAt: number, enqueuedAt: number, now: number, skewMs: number): WindowRefusal | null {
  if (!Number.isFinite(signedAt)) return { code: 'message_stale', reason: 'message_stale: the message has no readable timestamp' };
  const iso = (ms: number): string => new Date(ms).toISOString();
  if (Math.abs(enqueuedAt - signedAt) > skewMs) {
    return {
      code: 'message_stale',
      reason: `message_stale: signed at ${iso(signedAt)} but enqueued at ${iso(enqueuedAt)}, more than ${skewMs} ms apart (TIERFLOW_MAX_CLOCK_SKEW_MS): an old message added again`,
    };
  }
  if (signedAt - now > skewMs) {
    return {
      code: 'message_from_future',
      reason: `message_from_future: signed at ${iso(signedAt)}, more than ${skewMs} ms ahead of this receiver's clock (${iso(now)})`,
    };
  }
  return null;
}
