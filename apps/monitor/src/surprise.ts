import { METRICS, standardDeviation, type Bounds, type Metric, type Sample } from './bounds.js';
import type { SurpriseOptions } from './options.js';

/**
 * The least σ each metric is judged with: `max(σ, absolute, relative × |mean|)`. Without a
 * floor, a task type whose samples were all alike has σ = 0 and every tiny difference would
 * surprise. Confidence: 0.01 (with 3σ, a confidence 0.03 off the mean of identical samples
 * surprises). Duration: 5 % of the mean, at least 1 ms (with 3σ, 15 % off).
 */
export const SIGMA_FLOOR = {
  confidence: { absolute: 0.01, relative: 0 },
  execution_time_ms: { absolute: 1, relative: 0.05 },
} as const satisfies Record<Metric, { absolute: number; relative: number }>;

/** How a metric is worded in a reason. */
const METRIC_WORDS = {
  confidence: { name: 'confidence', format: (value: number) => value.toFixed(2) },
  execution_time_ms: { name: 'duration', format: (value: number) => `${Math.round(value)}ms` },
} as const satisfies Record<Metric, { name: string; format: (value: number) => string }>;

/** `surprise_flag` / `surprise_reason` (docs/protocol.md#outcome-payload). */
export interface SurpriseVerdict {
  readonly flag: boolean;
  /** Which metric lay outside its bounds and by how much; null when nothing surprised. */
  readonly reason: string | null;
}

/** σ as the check uses it, floored (see {@link SIGMA_FLOOR}). */
export function effectiveSigma(bounds: Bounds, metric: Metric): number {
  const floor = SIGMA_FLOOR[metric];
  return Math.max(standardDeviation(bounds[metric], bounds.n), floor.absolute, floor.relative * Math.abs(bounds[metric].mean));
}

/**
 * Whether a sample lies outside the learned bounds: once there are at least `minSamples`, a metric
 * surprises when it lies more than `sigmas`·σ from its mean. Pure; the sample is judged against
 * the bounds before it is added to them.
 */
export function checkSurprise(bounds: Bounds | null, sample: Sample, options: SurpriseOptions): SurpriseVerdict {
  if (bounds === null || bounds.n < options.minSamples) return { flag: false, reason: null };
  const reasons = METRICS.flatMap((metric) => {
    const { mean } = bounds[metric];
    const sigma = effectiveSigma(bounds, metric);
    const distance = Math.abs(sample[metric] - mean) / sigma;
    if (!(distance > options.sigmas)) return [];
    const words = METRIC_WORDS[metric];
    const side = sample[metric] > mean ? 'above' : 'below';
    return [
      `${words.name} ${words.format(sample[metric])} is ${distance.toFixed(1)}σ ${side} the mean ${words.format(mean)} ` + `(σ ${words.format(sigma)}, ${bounds.n} samples, limit ${options.sigmas}σ)`,
    ];
  });
  return reasons.length === 0 ? { flag: false, reason: null } : { flag: true, reason: reasons.join('; ') };
}
