/**
 * When to send spans again after an export failed: the pure part of the OTLP/HTTP transport.
 * A collector that refuses the connection (or whose address does not resolve) is down: retrying
 * it at once only keeps the process waiting, so it is left alone for a cool-down. A collector that
 * answers "busy" (429, 502, 503, 504) or drops a connection is retried with backoff, as the SDK does.
 */

/** What a failed attempt says about the collector. */
export type FailureKind = 'unreachable' | 'transient' | 'permanent';

/** Errors that mean nothing is there to take the spans; seen at once, so retrying soon is pointless. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Errors on a connection to a live collector, such as a kept-alive socket it had just closed. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** How long a collector found unreachable is left alone before spans are sent to it again. */
export const COLLECTOR_COOL_DOWN_MS = 5_000;
/** Retries of one batch after the first attempt, and their backoff: the SDK's own numbers. */
export const MAX_RETRIES = 5;
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 5_000;
const BACKOFF_MULTIPLIER = 1.5;
const JITTER = 0.2;

/** What a request error (from `http.request`) says about the collector. */
export function classifyRequestError(error: unknown): FailureKind {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  if (typeof code !== 'string') return 'permanent';
  if (UNREACHABLE_CODES.has(code)) return 'unreachable';
  return TRANSIENT_CODES.has(code) ? 'transient' : 'permanent';
}

/** What an HTTP status from the collector means for the batch it answered. */
export function classifyStatus(status: number): 'accepted' | FailureKind {
  if (status >= 200 && status < 300) return 'accepted';
  return RETRYABLE_STATUSES.has(status) ? 'transient' : 'permanent';
}

/**
 * The pause before retry number `retry` (1 for the first): 1 s growing by half each time up to
 * 5 s, give or take a fifth; null once the retries are spent or the pause would end after `remainingMs`.
 */
export function retryDelay(retry: number, remainingMs: number, retryAfterMs?: number, random: () => number = Math.random): number | null {
  if (retry < 1 || retry > MAX_RETRIES) return null;
  const backoff = Math.min(FIRST_BACKOFF_MS * BACKOFF_MULTIPLIER ** (retry - 1), MAX_BACKOFF_MS) * (1 + (random() * 2 - 1) * JITTER);
  const delay = retryAfterMs ?? backoff;
  return delay > remainingMs ? null : delay;
}

/** Whether the collector is taken to be down: from a refused connection until the cool-down has passed. */
export class CollectorAvailability {
  private downUntil = 0;

  constructor(private readonly coolDownMs: number = COLLECTOR_COOL_DOWN_MS) {}

  isDown(now: number): boolean {
    return now < this.downUntil;
  }

  markDown(now: number): void {
    this.downUntil = now + this.coolDownMs;
  }

  markUp(): void {
    this.downUntil = 0;
  }
}
