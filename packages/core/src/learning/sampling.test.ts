import { describe, expect, it } from 'vitest';
import { sampleBeta, seededRandom } from './sampling.js';

describe('seededRandom', () => {
  it('repeats its sequence for a seed, differs across seeds, and stays in [0, 1)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const first = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(first);
    expect(Array.from({ length: 1000 }, () => c())).not.toEqual(first);
    expect(first.every((u) => u >= 0 && u < 1)).toBe(true);
    expect(first.reduce((sum, u) => sum + u, 0) / first.length).toBeCloseTo(0.5, 1);
  });
});

describe('sampleBeta', () => {
  const moments = (alpha: number, beta: number): { mean: number; variance: number } => {
    const random = seededRandom(7);
    const draws = Array.from({ length: 20_000 }, () => sampleBeta(alpha, beta, random));
    expect(draws.every((draw) => draw >= 0 && draw <= 1)).toBe(true);
    const mean = draws.reduce((sum, x) => sum + x, 0) / draws.length;
    return { mean, variance: draws.reduce((sum, x) => sum + (x - mean) ** 2, 0) / draws.length };
  };

  for (const [alpha, beta] of [
    [1, 1],
    [10, 2],
    [2.5, 7.25],
    [0.5, 0.5],
  ] as const) {
    it(`has the mean and variance of Beta(${alpha}, ${beta})`, () => {
      const { mean, variance } = moments(alpha, beta);
      const total = alpha + beta;
      expect(mean).toBeCloseTo(alpha / total, 2);
      expect(variance).toBeCloseTo((alpha * beta) / (total * total * (total + 1)), 2);
    });
  }

  it('refuses parameters that are not positive and finite', () => {
    expect(() => sampleBeta(0, 1, Math.random)).toThrow(RangeError);
    expect(() => sampleBeta(1, Infinity, Math.random)).toThrow(RangeError);
  });
});
