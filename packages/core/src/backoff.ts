import { isTierflowError, TierflowError } from '@tierflow/protocol';

/** How a transient failure is retried (up to 3 attempts with exponential backoff: docs/protocol.md#retries). */
export interface RetryOptions {
  /** Total tries, the first included (BullMQ's `attempts`); at least 1. */
  readonly attempts: number;
  /** The delay before the first retry, doubled for each one after it (BullMQ's `delay`). */
  readonly baseDelayMs: number;
  /** A cap on any one delay; BullMQ has none, so a long run of retries would otherwise wait for hours. */
  readonly maxDelayMs: number;
  /** The fraction of each delay that is random, in [0, 1] (BullMQ's `jitter`): spreads a burst of retries apart. */
  readonly jitter: number;
}

export const DEFAULT_RETRY_OPTIONS = { attempts: 3, baseDelayMs: 200, maxDelayMs: 30_000, jitter: 0.5 } as const satisfies RetryOptions;

/**
 * Fills in the defaults and checks the result: `attempts` a whole number ≥ 1, delays whole
 * numbers ≥ 0 with `maxDelayMs` ≥ `baseDelayMs`, `jitter` within [0, 1].
 *
 * @throws TierflowError (permanent, code `invalid_config`) naming every problem.
 */
export function resolveRetryOptions(input: { readonly [K in keyof RetryOptions]?: RetryOptions[K] | undefined } = {}): RetryOptions {
  const resolved: RetryOptions = {
    attempts: input.attempts ?? DEFAULT_RETRY_OPTIONS.attempts,
    baseDelayMs: input.baseDelayMs ?? DEFAULT_RETRY_OPTIONS.baseDelayMs,
    maxDelayMs: input.maxDelayMs ?? DEFAULT_RETRY_OPTIONS.maxDelayMs,
    jitter: input.jitter ?? DEFAULT_RETRY_OPTIONS.jitter,
  };
  const show = (key: keyof RetryOptions): string => `${key} (${resolved[key]}${input[key] === undefined ? ', the default' : ''})`;
  const problems: string[] = [];
  if (!Number.isSafeInteger(resolved.attempts) || resolved.attempts < 1) problems.push(`${show('attempts')} must be a whole number of at least 1`);
  if (!isWholeMs(resolved.baseDelayMs)) problems.push(`${show('baseDelayMs')} must be a whole number of milliseconds, 0 or more`);
  if (!isWholeMs(resolved.maxDelayMs)) problems.push(`${show('maxDelayMs')} must be a whole number of milliseconds, 0 or more`);
  else if (resolved.maxDelayMs < resolved.baseDelayMs) problems.push(`${show('maxDelayMs')} must be at least ${show('baseDelayMs')}`);
  if (!(resolved.jitter >= 0 && resolved.jitter <= 1)) problems.push(`${show('jitter')} must be within [0, 1]`);
  if (problems.length > 0) {
    throw TierflowError.permanent(`invalid retry options: ${problems.join('; ')}`, { code: 'invalid_config' });
  }
  return resolved;
}

function isWholeMs(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

function checkAttemptsMade(attemptsMade: number, least: number): void {
  if (!Number.isSafeInteger(attemptsMade) || attemptsMade < least) {
    throw new RangeError(`attemptsMade must be a whole number of at least ${least}, got ${attemptsMade}`);
  }
}

/**
 * The delay before the next try, after `attemptsMade` tries (k ≥ 1), as BullMQ's exponential
 * backoff computes it, capped: raw = min(maxDelayMs, baseDelayMs × 2^(k−1)). Jitter j takes a
 * random share off: `raw − raw × j × random()`, so the delay lies in [raw × (1 − j), raw], floored
 * to whole milliseconds.
 *
 * @param random a source in [0, 1], such as `Math.random`; injected so the maths stays pure.
 * @throws RangeError for attemptsMade below 1 or not whole, or a random value outside [0, 1].
 */
export function backoffDelay(attemptsMade: number, options: RetryOptions, random: () => number): number {
  checkAttemptsMade(attemptsMade, 1);
  const raw = rawBackoffDelay(attemptsMade, options);
  if (options.jitter === 0 || raw === 0) return Math.floor(raw);
  const r = random();
  if (!(r >= 0 && r <= 1)) throw new RangeError(`random() must return a number within [0, 1], got ${r}`);
  const jittered = Math.floor(raw - raw * options.jitter * r);
  // `raw − raw × j` can round an ulp below `raw × (1 − j)`; keep the documented range exact.
  return Math.min(Math.floor(raw), Math.max(Math.floor(raw * (1 - options.jitter)), jittered));
}

/** The delay before jitter: min(maxDelayMs, baseDelayMs × 2^(attemptsMade−1)). */
export function rawBackoffDelay(attemptsMade: number, options: RetryOptions): number {
  checkAttemptsMade(attemptsMade, 1);
  // 0 × 2^1100 would be 0 × Infinity = NaN.
  if (options.baseDelayMs === 0) return 0;
  return Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attemptsMade - 1));
}

/**
 * Whether to try again after a failure, with `attemptsMade` tries made so far: not once the
 * attempts are spent, not for a permanent {@link TierflowError}; otherwise yes, for an unknown
 * error is taken as transient, and transient failures are retried (docs/protocol.md#retries).
 */
export function shouldRetry(error: unknown, attemptsMade: number, options: RetryOptions): boolean {
  checkAttemptsMade(attemptsMade, 0);
  if (attemptsMade >= options.attempts) return false;
  if (isTierflowError(error) && !error.retryable) return false;
  return true;
}
