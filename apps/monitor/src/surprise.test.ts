import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { updateBounds, type Bounds, type Sample } from './bounds.js';
import { checkSurprise, type SurpriseVerdict } from './surprise.js';

const options = { minSamples: 5, sigmas: 3 };
const sample = (confidence: number, execution_time_ms: number): Sample => ({ confidence, execution_time_ms });
function fold(samples: readonly Sample[]): Bounds | null {
  return samples.reduce<Bounds | null>((bounds, s) => updateBounds(bounds, s), null);
}
/** Five runs: confidence mean 0.8, σ 0.1; duration mean 1000 ms, σ 100 ms. */
const learned = fold([sample(0.7, 900), sample(0.9, 1100), sample(0.8, 1000), sample(0.7, 900), sample(0.9, 1100)]);
const identical = fold(Array.from({ length: 6 }, () => sample(0.9, 1000)));

describe('checkSurprise', () => {
  it.each<[string, Bounds | null, Sample, boolean, RegExp | null]>([
    ['nothing learned yet', null, sample(0, 1e9), false, null],
    ['fewer than minSamples', fold([sample(0.8, 1000), sample(0.8, 1000), sample(0.8, 1000), sample(0.8, 1000)]), sample(0, 1e9), false, null],
    ['within the bounds', learned, sample(0.6, 1200), false, null],
    ['confidence far below', learned, sample(0.1, 1000), true, /^confidence 0\.10 is 7\.0σ below the mean 0\.80 \(σ 0\.10, 5 samples, limit 3σ\)$/],
    ['duration far above', learned, sample(0.8, 5000), true, /^duration 5000ms is 40\.0σ above the mean 1000ms \(σ 100ms/],
    ['both', learned, sample(0.1, 5000), true, /^confidence .*; duration /],
    ['identical samples: a tiny difference is no surprise (σ floor)', identical, sample(0.88, 1100), false, null],
    ['identical samples: a real difference still is', identical, sample(0.5, 1000), true, /^confidence 0\.50 is 40\.0σ below/],
    ['identical durations: 15 % off is the limit', identical, sample(0.9, 1200), true, /^duration 1200ms is 4\.0σ above the mean 1000ms \(σ 50ms/],
  ])('%s', (_name, bounds, subject, flag, reason) => {
    const verdict: SurpriseVerdict = checkSurprise(bounds, subject, options);
    expect(verdict.flag).toBe(flag);
    if (reason) expect(verdict.reason).toMatch(reason);
    else expect(verdict.reason).toBeNull();
  });
});

describe('checkSurprise: properties', () => {
  const samplesArb = fc.array(fc.record({ confidence: fc.double({ min: 0, max: 1, noNaN: true }), execution_time_ms: fc.integer({ min: 0, max: 10_000_000 }) }), { minLength: 1, maxLength: 40 });

  it('never finds a sample equal to the mean surprising', () => {
    fc.assert(
      fc.property(samplesArb, fc.integer({ min: 1, max: 10 }), fc.double({ min: 0.1, max: 10, noNaN: true }), (samples, minSamples, sigmas) => {
        const bounds = fold(samples)!;
        const atMean = { confidence: bounds.confidence.mean, execution_time_ms: bounds.execution_time_ms.mean };
        expect(checkSurprise(bounds, atMean, { minSamples, sigmas })).toEqual({ flag: false, reason: null });
      }),
    );
  });

  it('never flags before minSamples', () => {
    fc.assert(
      fc.property(samplesArb, fc.record({ confidence: fc.double({ min: 0, max: 1, noNaN: true }), execution_time_ms: fc.nat() }), (samples, subject) => {
        const bounds = fold(samples)!;
        expect(checkSurprise(bounds, subject, { minSamples: samples.length + 1, sigmas: 3 }).flag).toBe(false);
      }),
    );
  });
});
