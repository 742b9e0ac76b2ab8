import { z } from 'zod';

/** Running statistics of one metric (Welford): the mean, the sum of squared deviations M2, and the range seen. */
export const metricStatsSchema = z.object({
  mean: z.number(),
  m2: z.number().nonnegative(),
  min: z.number(),
  max: z.number(),
});
export type MetricStats = z.infer<typeof metricStatsSchema>;

/** What the Monitor has learned about one task type's outcomes, to judge the next one's surprise (docs/protocol.md#outcome-payload). */
export const boundsSchema = z.object({
  n: z.int().positive(),
  confidence: metricStatsSchema,
  execution_time_ms: metricStatsSchema,
});
export type Bounds = z.infer<typeof boundsSchema>;

/** The metrics the bounds follow. */
export const METRICS = ['confidence', 'execution_time_ms'] as const;
export type Metric = (typeof METRICS)[number];

/** One run's measurements. */
export type Sample = Readonly<Record<Metric, number>>;

function first(value: number): MetricStats {
  return { mean: value, m2: 0, min: value, max: value };
}

/** Welford's update, numerically stable; the mean is clamped into the range seen, which rounding could leave by an ulp. */
function step(stats: MetricStats, n: number, value: number): MetricStats {
  const delta = value - stats.mean;
  const min = Math.min(stats.min, value);
  const max = Math.max(stats.max, value);
  const mean = Math.min(max, Math.max(min, stats.mean + delta / n));
  return { mean, m2: Math.max(0, stats.m2 + delta * (value - mean)), min, max };
}

/** The bounds with one more sample; `null` bounds start afresh. Pure. */
export function updateBounds(bounds: Bounds | null, sample: Sample): Bounds {
  if (bounds === null) return { n: 1, confidence: first(sample.confidence), execution_time_ms: first(sample.execution_time_ms) };
  const n = bounds.n + 1;
  return { n, confidence: step(bounds.confidence, n, sample.confidence), execution_time_ms: step(bounds.execution_time_ms, n, sample.execution_time_ms) };
}

/** The sample standard deviation (n − 1 in the denominator); 0 with fewer than two samples. */
export function standardDeviation(stats: MetricStats, n: number): number {
  return n < 2 ? 0 : Math.sqrt(stats.m2 / (n - 1));
}
