import type { SpecialistStats } from '@tierflow/core';
import { z } from 'zod';

/** A task type × specialist pair that holds work up: among the slowest, or among the least reliable. */
export const bottleneckSchema = z.object({
  task_type: z.string(),
  specialist: z.string(),
  /** `slow`: among the highest p95 latencies; `unreliable`: among the lowest success rates. */
  reason: z.enum(['slow', 'unreliable']),
  samples: z.number().nonnegative(),
  success_rate: z.number().min(0).max(1).nullable(),
  p95_latency_ms: z.number().nonnegative().nullable(),
});
export type Bottleneck = z.infer<typeof bottleneckSchema>;

/** `system/bottlenecks`, as the Monitor keeps it. */
export const bottlenecksSchema = z.object({
  /** ISO 8601: when the Monitor last brought it up to date. */
  updated_at: z.string(),
  bottlenecks: z.array(bottleneckSchema),
});
export type Bottlenecks = z.infer<typeof bottlenecksSchema>;

/** A pair is judged once it has this many (decayed) samples: before, its figures are noise. */
export const BOTTLENECK_MIN_SAMPLES = 5;
/** How many pairs each list names. */
export const BOTTLENECKS_LISTED = 5;

/** A pair and its history. */
export interface PairStats {
  readonly task_type: string;
  readonly specialist: string;
  readonly stats: SpecialistStats;
}

/**
 * The slowest pairs (by p95 latency) and the least reliable (by success rate), at most
 * {@link BOTTLENECKS_LISTED} of each, among those with {@link BOTTLENECK_MIN_SAMPLES} samples; a
 * pair that always succeeds is not unreliable. Ties go by name, so the list is stable. Pure.
 */
export function rankBottlenecks(pairs: readonly PairStats[]): Bottleneck[] {
  const judged = pairs.filter((pair) => pair.stats.samples >= BOTTLENECK_MIN_SAMPLES);
  const byName = (a: PairStats, b: PairStats): number => a.task_type.localeCompare(b.task_type) || a.specialist.localeCompare(b.specialist);
  const slow = judged
    .filter((pair) => pair.stats.latency_ms !== null)
    .sort((a, b) => b.stats.latency_ms!.p95 - a.stats.latency_ms!.p95 || byName(a, b))
    .slice(0, BOTTLENECKS_LISTED);
  const unreliable = judged
    .filter((pair) => pair.stats.success_rate !== null && pair.stats.success_rate < 1)
    .sort((a, b) => a.stats.success_rate! - b.stats.success_rate! || byName(a, b))
    .slice(0, BOTTLENECKS_LISTED);
  return [...slow.map((pair) => bottleneck(pair, 'slow')), ...unreliable.map((pair) => bottleneck(pair, 'unreliable'))];
}

function bottleneck(pair: PairStats, reason: Bottleneck['reason']): Bottleneck {
  const { stats } = pair;
  return { task_type: pair.task_type, specialist: pair.specialist, reason, samples: stats.samples, success_rate: stats.success_rate, p95_latency_ms: stats.latency_ms?.p95 ?? null };
}
