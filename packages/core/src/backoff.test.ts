import { isTierflowError, TierflowError } from '@tierflow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY_OPTIONS, rawBackoffDelay, resolveRetryOptions, shouldRetry, type RetryOptions } from './backoff.js';

const NO_JITTER: RetryOptions = { ...DEFAULT_RETRY_OPTIONS, jitter: 0 };
const always = (value: number) => (): number => value;

describe('resolveRetryOptions', () => {
  it.each<[Partial<RetryOptions> | undefined, RetryOptions]>([
    [undefined, { attempts: 3, baseDelayMs: 200, maxDelayMs: 30_000, jitter: 0.5 }],
    [{}, DEFAULT_RETRY_OPTIONS],
    [{ attempts: 1 }, { ...DEFAULT_RETRY_OPTIONS, attempts: 1 }],
    [
      { baseDelayMs: 0, jitter: 0 },
      { ...DEFAULT_RETRY_OPTIONS, baseDelayMs: 0, jitter: 0 },
    ],
    [
      { baseDelayMs: 1000, maxDelayMs: 1000, jitter: 1 },
      { attempts: 3, baseDelayMs: 1000, maxDelayMs: 1000, jitter: 1 },
    ],
  ])('%j → %j', (input, expected) => {
    expect(resolveRetryOptions(input)).toEqual(expected);
  });

  it.each<[Partial<RetryOptions>, string]>([
    [{ attempts: 0 }, 'attempts (0) must be a whole number of at least 1'],
    [{ attempts: 2.5 }, 'attempts (2.5) must be a whole number of at least 1'],
    [{ attempts: Number.NaN }, 'attempts (NaN) must be a whole number of at least 1'],
    [{ baseDelayMs: -1 }, 'baseDelayMs (-1) must be a whole number of milliseconds, 0 or more'],
    [{ maxDelayMs: Infinity }, 'maxDelayMs (Infinity) must be a whole number of milliseconds, 0 or more'],
    [{ baseDelayMs: 60_000 }, 'maxDelayMs (30000, the default) must be at least baseDelayMs (60000)'],
    [{ jitter: 1.5 }, 'jitter (1.5) must be within [0, 1]'],
    [{ jitter: Number.NaN }, 'jitter (NaN) must be within [0, 1]'],
    [{ attempts: 0, jitter: -1 }, 'attempts (0) must be a whole number of at least 1; jitter (-1) must be within [0, 1]'],
  ])('refuses %j', (input, message) => {
    let thrown: unknown;
    try {
      resolveRetryOptions(input);
    } catch (error) {
      thrown = error;
    }
    expect(isTierflowError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'invalid_config', retryable: false, message: `invalid retry options: ${message}` });
  });
});

describe('backoffDelay', () => {
  it.each<[number, RetryOptions, number, number]>([
    // BullMQ's exponential backoff: base × 2^(k−1).
    [1, NO_JITTER, 0.5, 200],
    [2, NO_JITTER, 0.5, 400],
    [3, NO_JITTER, 0.5, 800],
    [8, NO_JITTER, 0.5, 25_600],
    [9, NO_JITTER, 0.5, 30_000],
    [2000, NO_JITTER, 0.5, 30_000],
    [1, { ...NO_JITTER, baseDelayMs: 0 }, 0.5, 0],
    [2000, { ...NO_JITTER, baseDelayMs: 0 }, 0.5, 0],
    // Jitter j takes up to raw × j off.
    [1, DEFAULT_RETRY_OPTIONS, 0, 200],
    [1, DEFAULT_RETRY_OPTIONS, 0.5, 150],
    [1, DEFAULT_RETRY_OPTIONS, 1, 100],
    [3, DEFAULT_RETRY_OPTIONS, 0.25, 700],
    [20, DEFAULT_RETRY_OPTIONS, 1, 15_000],
    [2, { ...DEFAULT_RETRY_OPTIONS, jitter: 1 }, 1, 0],
    [2, { ...DEFAULT_RETRY_OPTIONS, jitter: 0.3 }, 0.999, 280],
  ])('after %d tries with %j and random %d → %d ms', (attemptsMade, options, random, delay) => {
    expect(backoffDelay(attemptsMade, options, always(random))).toBe(delay);
  });

  it('does not draw a random number when there is no jitter', () => {
    expect(backoffDelay(1, NO_JITTER, () => Number.NaN)).toBe(200);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses attemptsMade %d', (attemptsMade) => {
    expect(() => backoffDelay(attemptsMade, DEFAULT_RETRY_OPTIONS, always(0.5))).toThrow(RangeError);
  });

  it.each([-0.1, 1.1, Number.NaN])('refuses a random source returning %d', (value) => {
    expect(() => backoffDelay(1, DEFAULT_RETRY_OPTIONS, always(value))).toThrow(/random\(\) must return/);
  });
});

describe('backoffDelay: properties', () => {
  const optionsArb = fc
    .record({
      attempts: fc.integer({ min: 1, max: 10 }),
      baseDelayMs: fc.integer({ min: 0, max: 10_000 }),
      extraMaxMs: fc.integer({ min: 0, max: 100_000 }),
      jitter: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map(({ extraMaxMs, ...rest }) => resolveRetryOptions({ ...rest, maxDelayMs: rest.baseDelayMs + extraMaxMs }));
  const attemptsArb = fc.integer({ min: 1, max: 1100 });
  const randomArb = fc.double({ min: 0, max: 1, noNaN: true });

  it('lies within [raw × (1 − j), raw], in whole milliseconds, never above maxDelayMs', () => {
    fc.assert(
      fc.property(optionsArb, attemptsArb, randomArb, (options, attemptsMade, random) => {
        const raw = rawBackoffDelay(attemptsMade, options);
        const delay = backoffDelay(attemptsMade, options, always(random));
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(raw * (1 - options.jitter)));
        expect(delay).toBeLessThanOrEqual(raw);
        expect(delay).toBeLessThanOrEqual(options.maxDelayMs);
      }),
    );
  });

  it('never shrinks the raw delay from one try to the next', () => {
    fc.assert(
      fc.property(optionsArb, attemptsArb, (options, attemptsMade) => {
        expect(rawBackoffDelay(attemptsMade + 1, options)).toBeGreaterThanOrEqual(rawBackoffDelay(attemptsMade, options));
      }),
    );
  });

  it('takes less off for a smaller random draw', () => {
    fc.assert(
      fc.property(optionsArb, attemptsArb, randomArb, randomArb, (options, attemptsMade, x, y) => {
        const [low, high] = x <= y ? [x, y] : [y, x];
        expect(backoffDelay(attemptsMade, options, always(low))).toBeGreaterThanOrEqual(backoffDelay(attemptsMade, options, always(high)));
      }),
    );
  });
});

describe('shouldRetry', () => {
  const options = resolveRetryOptions({ attempts: 3 });
  it.each<[string, unknown, number, boolean]>([
    ['an unknown error, first try made', new Error('ECONNRESET'), 1, true],
    ['an unknown error, second try made', new Error('ECONNRESET'), 2, true],
    ['an unknown error, attempts spent', new Error('ECONNRESET'), 3, false],
    ['an unknown error, past the attempts', new Error('ECONNRESET'), 4, false],
    ['a thrown string', 'boom', 1, true],
    ['a retryable TierflowError', TierflowError.retryable('busy', { code: 'upstream_busy', kind: 'unavailable' }), 1, true],
    ['a retryable TierflowError, attempts spent', TierflowError.retryable('busy', { code: 'upstream_busy', kind: 'unavailable' }), 3, false],
    ['a permanent TierflowError', TierflowError.permanent('no such repository', { code: 'not_found', kind: 'not_found' }), 1, false],
    ['a TierflowError look-alike from another copy', Object.assign(new Error('x'), { code: 'c', retryable: false }), 1, false],
    ['before any try', new Error('x'), 0, true],
  ])('%s → %s', (_label, error, attemptsMade, expected) => {
    expect(shouldRetry(error, attemptsMade, options)).toBe(expected);
  });

  it('never retries with a single attempt', () => {
    expect(shouldRetry(new Error('x'), 1, resolveRetryOptions({ attempts: 1 }))).toBe(false);
  });

  it.each([-1, 0.5, Number.NaN])('refuses attemptsMade %d', (attemptsMade) => {
    expect(() => shouldRetry(new Error('x'), attemptsMade, options)).toThrow(RangeError);
  });
});
