import { describe, expect, it } from 'vitest';
import { isConfidence, meanConfidence } from './mean-confidence.js';

describe('meanConfidence', () => {
  it.each<[number[], number]>([
    [[0.5], 0.5],
    [[0, 1], 0.5],
    [[0.1, 0.2, 0.3], 0.2],
    [[0.3, 0.3, 0.3], 0.3],
  ])('mean of %j is %d', (values, mean) => {
    expect(meanConfidence(values)).toBeCloseTo(mean, 12);
  });

  it('stays within the inputs even where summing drifts', () => {
    // 0.1 + 0.1 + 0.1 is 0.30000000000000004; a third of it would leave the range.
    expect(meanConfidence([0.1, 0.1, 0.1])).toBe(0.1);
  });

  it('refuses an empty list', () => {
    expect(() => meanConfidence([])).toThrow(RangeError);
  });
});

describe('isConfidence', () => {
  it.each<[number, boolean]>([
    [0, true],
    [1, true],
    [0.5, true],
    [-0, true],
    [-Number.EPSILON, false],
    [1 + Number.EPSILON, false],
    [Number.NaN, false],
    [Infinity, false],
  ])('%d → %s', (value, expected) => {
    expect(isConfidence(value)).toBe(expected);
  });
});
