import { isTierflowError } from '@tierflow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CASCADE_SEVERITY, cascadeCheck, DEFAULT_CASCADE_THRESHOLDS, resolveCascadeThresholds, type CascadeAction, type CascadeThresholds } from './confidence-cascade.js';

describe('cascadeCheck with the default thresholds', () => {
  it.each<[number, CascadeAction, number]>([
    [1, 'proceed', 0.8],
    [0.92, 'proceed', 0.8],
    [0.8, 'proceed', 0.8],
    [0.7999999, 'flag_uncertainty', 0.5],
    [0.65, 'flag_uncertainty', 0.5],
    [0.5, 'flag_uncertainty', 0.5],
    [0.4999999, 'needs_review', 0.3],
    [0.4, 'needs_review', 0.3],
    [0.3, 'needs_review', 0.3],
    [0.2999999, 'reject_and_escalate', 0.3],
    [0.1, 'reject_and_escalate', 0.3],
    [0, 'reject_and_escalate', 0.3],
  ])('%d → %s (threshold %d)', (confidence, action, threshold) => {
    expect(cascadeCheck(confidence)).toEqual({ action, confidence, threshold });
  });

  it.each([-0.01, 1.01, Number.NaN, Infinity, -Infinity])('refuses confidence %d with a RangeError', (confidence) => {
    expect(() => cascadeCheck(confidence)).toThrow(RangeError);
  });
});

describe('cascadeCheck with custom thresholds', () => {
  const strict = { proceed: 0.95, flag: 0.7, review: 0.4 };
  it.each<[CascadeThresholds, number, CascadeAction]>([
    [strict, 0.95, 'proceed'],
    [strict, 0.9, 'flag_uncertainty'],
    [strict, 0.7, 'flag_uncertainty'],
    [strict, 0.5, 'needs_review'],
    [strict, 0.39, 'reject_and_escalate'],
    [{ proceed: 0.5, flag: 0.5, review: 0.5 }, 0.5, 'proceed'],
    [{ proceed: 0.5, flag: 0.5, review: 0.5 }, 0.49, 'reject_and_escalate'],
    [{ proceed: 0, flag: 0, review: 0 }, 0, 'proceed'],
    [{ proceed: 1, flag: 1, review: 1 }, 0.99, 'reject_and_escalate'],
  ])('%j: %d → %s', (thresholds, confidence, action) => {
    expect(cascadeCheck(confidence, thresholds).action).toBe(action);
  });

  it('checks custom thresholds too', () => {
    expect(() => cascadeCheck(0.5, { proceed: 0.2, flag: 0.5, review: 0.3 })).toThrow(/invalid cascade thresholds/);
  });
});

describe('resolveCascadeThresholds', () => {
  it.each<[Partial<CascadeThresholds> | undefined, CascadeThresholds]>([
    [undefined, DEFAULT_CASCADE_THRESHOLDS],
    [{}, DEFAULT_CASCADE_THRESHOLDS],
    [{ proceed: 0.9 }, { proceed: 0.9, flag: 0.5, review: 0.3 }],
    [{ review: 0.1 }, { proceed: 0.8, flag: 0.5, review: 0.1 }],
    [
      { proceed: 0.6, flag: 0.6, review: 0.6 },
      { proceed: 0.6, flag: 0.6, review: 0.6 },
    ],
  ])('%j → %j', (input, expected) => {
    expect(resolveCascadeThresholds(input)).toEqual(expected);
  });

  it.each<[Partial<CascadeThresholds>, string]>([
    [{ proceed: 1.2 }, 'proceed (1.2) must be a number within [0, 1]'],
    [{ review: -0.1 }, 'review (-0.1) must be a number within [0, 1]'],
    [{ flag: Number.NaN }, 'flag (NaN) must be a number within [0, 1]'],
    [{ proceed: 0.4 }, 'proceed (0.4) must be at least flag (0.5, the default)'],
    [{ flag: 0.2 }, 'flag (0.2) must be at least review (0.3, the default)'],
    [{ proceed: 0.6, flag: 0.7, review: 0.8 }, 'proceed (0.6) must be at least flag (0.7); flag (0.7) must be at least review (0.8)'],
  ])('refuses %j', (input, message) => {
    let thrown: unknown;
    try {
      resolveCascadeThresholds(input);
    } catch (error) {
      thrown = error;
    }
    expect(isTierflowError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'invalid_config', retryable: false, message: `invalid cascade thresholds: ${message}` });
  });
});

describe('cascadeCheck: properties', () => {
  const confidenceArb = fc.double({ min: 0, max: 1, noNaN: true });
  const thresholdsArb = fc.tuple(confidenceArb, confidenceArb, confidenceArb).map(([a, b, c]): CascadeThresholds => {
    const [review, flag, proceed] = [a, b, c].sort((x, y) => x - y) as [number, number, number];
    return { proceed, flag, review };
  });

  it('never gives a lighter action to a lower confidence', () => {
    fc.assert(
      fc.property(thresholdsArb, confidenceArb, confidenceArb, (thresholds, x, y) => {
        const [low, high] = x <= y ? [x, y] : [y, x];
        const severity = (c: number): number => CASCADE_SEVERITY[cascadeCheck(c, thresholds).action];
        expect(severity(low)).toBeGreaterThanOrEqual(severity(high));
      }),
    );
  });

  it('decides by a bound the confidence meets, or for a rejection the review bound it misses', () => {
    fc.assert(
      fc.property(thresholdsArb, confidenceArb, (thresholds, confidence) => {
        const decision = cascadeCheck(confidence, thresholds);
        if (decision.action === 'reject_and_escalate') expect(confidence).toBeLessThan(decision.threshold);
        else expect(confidence).toBeGreaterThanOrEqual(decision.threshold);
      }),
    );
  });
});
