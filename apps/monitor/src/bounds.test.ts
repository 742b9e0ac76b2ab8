import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { standardDeviation, updateBounds, type Bounds, type Sample } from './bounds.js';

function fold(samples: readonly Sample[]): Bounds | null {
  return samples.reduce<Bounds | null>((bounds, sample) => updateBounds(bounds, sample), null);
}
const sample = (confidence: number, execution_time_ms: number): Sample => ({ confidence, execution_time_ms });

describe('updateBounds', () => {
  it.each<[string, Sample[], { n: number; mean: number; sd: number; min: number; max: number }]>([
    ['one sample', [sample(0.8, 100)], { n: 1, mean: 0.8, sd: 0, min: 0.8, max: 0.8 }],
    ['identical samples', [sample(0.5, 100), sample(0.5, 100), sample(0.5, 100)], { n: 3, mean: 0.5, sd: 0, min: 0.5, max: 0.5 }],
    ['2, 4, 4, 4, 5, 5, 7, 9 (÷10)', [0.2, 0.4, 0.4, 0.4, 0.5, 0.5, 0.7, 0.9].map((c) => sample(c, 1)), { n: 8, mean: 0.5, sd: Math.sqrt(0.32 / 7), min: 0.2, max: 0.9 }],
  ])('confidence over %s', (_name, samples, expected) => {
    const bounds = fold(samples)!;
    expect(bounds.n).toBe(expected.n);
    expect(bounds.confidence.mean).toBeCloseTo(expected.mean, 12);
    expect(standardDeviation(bounds.confidence, bounds.n)).toBeCloseTo(expected.sd, 12);
    expect(bounds.confidence).toMatchObject({ min: expected.min, max: expected.max });
  });

  it('follows duration separately', () => {
    const bounds = fold([sample(1, 100), sample(1, 300)])!;
    expect(bounds.execution_time_ms).toEqual({ mean: 200, m2: 20_000, min: 100, max: 300 });
    expect(standardDeviation(bounds.execution_time_ms, 2)).toBeCloseTo(Math.sqrt(20_000), 9);
  });
});

const samplesArb = fc.array(fc.record({ confidence: fc.double({ min: 0, max: 1, noNaN: true }), execution_time_ms: fc.integer({ min: 0, max: 10_000_000 }) }), { minLength: 1, maxLength: 50 });

describe('updateBounds: properties', () => {
  it('keeps each mean within the range of the samples', () => {
    fc.assert(
      fc.property(samplesArb, (samples) => {
        const bounds = fold(samples)!;
        for (const metric of ['confidence', 'execution_time_ms'] as const) {
          const values = samples.map((s) => s[metric]);
          expect(bounds[metric].mean).toBeGreaterThanOrEqual(Math.min(...values));
          expect(bounds[metric].mean).toBeLessThanOrEqual(Math.max(...values));
        }
      }),
    );
  });

  it('counts every sample, never lets M2 go negative, and agrees with the two-pass mean', () => {
    fc.assert(
      fc.property(samplesArb, (samples) => {
        const bounds = fold(samples)!;
        expect(bounds.n).toBe(samples.length);
        const mean = samples.reduce((sum, s) => sum + s.confidence, 0) / samples.length;
        expect(bounds.confidence.mean).toBeCloseTo(mean, 9);
        expect(bounds.confidence.m2).toBeGreaterThanOrEqual(0);
        expect(bounds.execution_time_ms.m2).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
