import { describe, expect, it } from 'vitest';
import { histogramQuantile, type CumulativeBucket } from './quantile.js';

const buckets = (...pairs: [number, number][]): CumulativeBucket[] => pairs.map(([le, count]) => ({ le, count }));

// Figures as Prometheus's histogram_quantile gives them for the same buckets.
describe('histogramQuantile', () => {
  const hop = buckets([0.1, 10], [0.5, 30], [1, 90], [Infinity, 100]);
  it.each([
    ['the median, inside the third bucket', 0.5, hop, 0.5 + 0.5 * (20 / 60)],
    ['p95, in the +Inf bucket: the highest finite bound', 0.95, hop, 1],
    ['inside the first bucket, from 0', 0.05, hop, 0.05],
    ['inside the second bucket', 0.25, hop, 0.1 + 0.4 * (15 / 20)],
    ['p100 with nothing past the last finite bound', 1, buckets([1, 3], [2, 4], [Infinity, 4]), 2],
    ['a first bound at or below 0 is answered as is', 0.1, buckets([0, 5], [1, 10], [Infinity, 10]), 0],
    ['buckets given out of order', 0.5, buckets([Infinity, 4], [2, 4], [1, 2]), 1],
    ['counts that go down are held level', 0.5, buckets([1, 4], [2, 3], [Infinity, 4]), 0.5],
    ['q below 0', -1, hop, -Infinity],
    ['q above 1', 2, hop, Infinity],
  ])('%s', (_, q, given, expected) => {
    const answer = histogramQuantile(q, given);
    if (Number.isFinite(expected)) expect(answer).toBeCloseTo(expected, 10);
    else expect(answer).toBe(expected);
  });

  it.each([
    ['no observations', buckets([1, 0], [Infinity, 0])],
    ['one bucket', buckets([Infinity, 3])],
    ['no +Inf bucket', buckets([1, 1], [2, 3])],
  ])('is null for %s', (_, given) => {
    expect(histogramQuantile(0.5, given)).toBeNull();
  });
});
