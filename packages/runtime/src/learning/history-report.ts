import type { Beads } from '@tierflow/beads';
import { specialistStats, type DecayedSums } from '@tierflow/core';
import { outcomeStatusSchema } from '@tierflow/protocol';
import { z } from 'zod';
import { bottleneckSchema, rankBottlenecks, type PairStats } from './bottlenecks.js';
import { parseHistoryKey, routingAccuracyKey, specialistHistoryPattern, type HistoryKeyParts } from './history-keys.js';
import { readDecayedValues, type HistoryReadOptions } from './history-values.js';
import { routingAccuracy, routingAccuracySchema } from './routing-accuracy.js';

const count = z.number().nonnegative();
const share = z.number().min(0).max(1);

/** One confidence bin of a specialist's calibration: what it reported there, and how often it was right. */
export const calibrationBinSchema = z.object({ from: share, to: share, samples: count, mean_reported: share.nullable(), success_rate: share.nullable() });

/** A specialist's history on a task type, decayed (`@tierflow/core`'s `SpecialistStats`). */
export const specialistStatsSchema = z.object({
  samples: count,
  by_status: z.partialRecord(outcomeStatusSchema, count),
  success_rate: share.nullable(),
  calibration: z.object({ bins: z.array(calibrationBinSchema).readonly(), ece: share.nullable() }),
  latency_ms: z.object({ p50: count, p95: count, p99: count, mean: count }).nullable(),
  mean_tokens_in: count.nullable(),
  mean_tokens_out: count.nullable(),
  mean_cost_usd: count.nullable(),
  surprises: count,
});

/** What the tiers have learned: `tierflow stats --json` and `GET /api/stats` answer with it. */
export const historyReportSchema = z.object({
  /** ISO 8601: the moment every figure is decayed to. */
  generated_at: z.iso.datetime(),
  /** The half-life the history was last kept with; null with no history. */
  half_life_ms: z.number().positive().nullable(),
  /** Routing accuracy over every task type; null with none, and in a report of one task type. */
  routing: routingAccuracySchema.nullable(),
  task_types: z
    .array(
      z.object({
        task_type: z.string(),
        routing: routingAccuracySchema.nullable(),
        /** By name; each with its models (by name), for specialists that say which model answered. */
        specialists: z
          .array(
            z.object({
              specialist: z.string(),
              stats: specialistStatsSchema,
              models: z.array(z.object({ model: z.string(), stats: specialistStatsSchema })).readonly(),
            }),
          )
          .readonly(),
      }),
    )
    .readonly(),
  /** The slowest and least reliable task type × specialist pairs among those reported. */
  bottlenecks: z.array(bottleneckSchema).readonly(),
});
export type HistoryReport = z.infer<typeof historyReportSchema>;

/** What a report covers, and when. */
export interface HistoryReportOptions extends HistoryReadOptions {
  /** Only this task type; every one when left out. */
  readonly taskType?: string;
  /** The moment every figure is decayed to, ms since the epoch. */
  readonly now: number;
}

type TaskTypeReport = HistoryReport['task_types'][number];

/**
 * The report of what the tiers have learned, from Beads: the specialist and model keys found by
 * SCAN, then every value, routing accuracy included, in one read. Unreadable values count as no
 * history (warned through `options.log`).
 */
export async function readHistoryReport(beads: Pick<Beads, 'keys' | 'getMany' | 'get'>, options: HistoryReportOptions): Promise<HistoryReport> {
  const { taskType, now } = options;
  const found = (await beads.keys(specialistHistoryPattern(taskType)))
    .map((key) => ({ key, parts: parseHistoryKey(key) }))
    .filter((entry): entry is { key: string; parts: HistoryKeyParts } => entry.parts !== null && (taskType === undefined || entry.parts.taskType === taskType));
  const taskTypes = [...new Set(found.map((entry) => entry.parts.taskType))].sort();
  const routingKeys = [...(taskType === undefined ? [routingAccuracyKey()] : []), ...taskTypes.map((type) => routingAccuracyKey(type))];
  const values = await readDecayedValues(beads, [...found.map((entry) => entry.key), ...routingKeys], options);
  const history = found.flatMap((entry, i) => (values[i] ? [{ parts: entry.parts, value: values[i] }] : []));
  const routingOf = new Map(routingKeys.map((key, i) => [key, values[found.length + i] ?? null]));

  const reports: TaskTypeReport[] = taskTypes.map((type) => {
    const own = history.filter((entry) => entry.parts.taskType === type);
    const specialists = [...new Set(own.filter((entry) => entry.parts.model === null).map((entry) => entry.parts.specialist))].sort();
    return {
      task_type: type,
      routing: routingAccuracy(routingOf.get(routingAccuracyKey(type)) ?? null, now),
      specialists: specialists.map((specialist) => ({
        specialist,
        stats: specialistStats(own.find((entry) => entry.parts.specialist === specialist && entry.parts.model === null)!.value, now),
        models: own
          .filter((entry) => entry.parts.specialist === specialist && entry.parts.model !== null)
          .map((entry) => ({ model: entry.parts.model!, stats: specialistStats(entry.value, now) }))
          .sort((a, b) => a.model.localeCompare(b.model)),
      })),
    };
  });
  const pairs: PairStats[] = reports.flatMap((report) => report.specialists.map((entry) => ({ task_type: report.task_type, specialist: entry.specialist, stats: entry.stats })));
  return {
    generated_at: new Date(now).toISOString(),
    half_life_ms: latestHalfLife([...history.map((entry) => entry.value), ...[...routingOf.values()].filter((value) => value !== null)]),
    routing: taskType === undefined ? routingAccuracy(routingOf.get(routingAccuracyKey()) ?? null, now) : null,
    task_types: reports.filter((report) => report.specialists.length > 0),
    bottlenecks: rankBottlenecks(pairs),
  };
}

/** The half-life of the value written last: the one the Monitor keeps history with now. */
function latestHalfLife(values: readonly DecayedSums[]): number | null {
  let latest: DecayedSums | null = null;
  for (const value of values) if (latest === null || value.updated_at > latest.updated_at) latest = value;
  return latest?.half_life_ms ?? null;
}
