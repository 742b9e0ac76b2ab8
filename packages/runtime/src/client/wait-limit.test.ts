import { isTierflowError } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { DEFAULT_WAIT_LIMIT_MS, defaultWaitLimitMs, givenWaitLimitMs, RECONCILE_INTERVAL_MS, WAIT_GRACE_MS } from './wait-limit.js';

describe('wait limits', () => {
  it("default to the objective's timeout plus the grace, or the default without one", () => {
    expect(defaultWaitLimitMs(2_000)).toBe(2_000 + WAIT_GRACE_MS);
    expect(defaultWaitLimitMs(null)).toBe(DEFAULT_WAIT_LIMIT_MS);
    // The grace leaves room for two reconciliations, so a missed answer is still found in time.
    expect(WAIT_GRACE_MS).toBeGreaterThanOrEqual(2 * RECONCILE_INTERVAL_MS);
  });

  it('never ask Node for a timer it would fire at once', () => {
    expect(defaultWaitLimitMs(30 * 24 * 3600_000)).toBe(2 ** 31 - 1);
    expect(givenWaitLimitMs(1e12)).toBe(2 ** 31 - 1);
  });

  it('refuse a limit that is not a positive number', () => {
    expect(givenWaitLimitMs(1.2)).toBe(2);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      let thrown: unknown;
      try {
        givenWaitLimitMs(bad);
      } catch (error) {
        thrown = error;
      }
      expect(isTierflowError(thrown) && thrown.code).toBe('invalid_argument');
    }
  });
});
