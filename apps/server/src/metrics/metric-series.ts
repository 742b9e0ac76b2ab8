import { cumulativeBuckets, seriesOf, type StoredMetrics, type StoredMinute, type StoredSeries } from '@tierflow/runtime/admin';
import { QUEUE_DEPTH, QUEUED_STATES } from './deployment-gauges.js';
import type { MetricsAnswer, MetricWindow } from './metrics-schemas.js';
import { histogramQuantile } from './quantile.js';

type Series = MetricsAnswer['series'];

/** The metrics the series are made of: all a reader of the store needs to decode. */
export const SERIES_METRICS: ReadonlySet<string> = new Set([
  'tierflow.runs.finished',
  'tierflow.hop.duration',
  QUEUE_DEPTH,
  'gen_ai.client.token.usage',
  'gen_ai.client.inference.tokens',
  'tierflow.model.cost',
  'tierflow.dead_letters',
]);

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

const iso = (ms: number): string => new Date(ms).toISOString();
const text = (series: StoredSeries, attribute: string): string | null => {
  const value = series.attributes[attribute];
  return value === undefined ? null : String(value);
};

/** Sums of `value(series)` by the key `keyOf(series)` gives (series it gives null are left out). */
function sumBy(series: readonly StoredSeries[], keyOf: (series: StoredSeries) => string | null, value: (series: StoredSeries) => number): Map<string, number> {
  const sums = new Map<string, number>();
  for (const one of series) {
    const key = keyOf(one);
    if (key !== null) sums.set(key, (sums.get(key) ?? 0) + value(one));
  }
  return sums;
}

/** A minute's median and p95 of each tier's passes, from the buckets of every series of that tier. */
function hopQuantiles(metrics: StoredMetrics): { tier: string; p50: number; p95: number }[] {
  const byTier = new Map<string, Map<number, number>>();
  for (const series of seriesOf(metrics, 'tierflow.hop.duration')) {
    const tier = text(series, 'tierflow.tier');
    if (tier === null || series.kind !== 'histogram') continue;
    const buckets = byTier.get(tier) ?? new Map<number, number>();
    for (const [le, count] of series.buckets) buckets.set(le, (buckets.get(le) ?? 0) + count);
    byTier.set(tier, buckets);
  }
  return [...byTier.entries()].flatMap(([tier, buckets]) => {
    const cumulative = cumulativeBuckets({ buckets });
    const p50 = histogramQuantile(0.5, cumulative);
    const p95 = histogramQuantile(0.95, cumulative);
    return p50 === null || p95 === null ? [] : [{ tier, p50, p95 }];
  });
}

/** A minute's errors by type: failed passes (tierflow.hop.duration with error.type) and dead letters. */
function errorCounts(metrics: StoredMetrics): Map<string, number> {
  const failed = seriesOf(metrics, 'tierflow.hop.duration').filter((series) => series.kind === 'histogram');
  const dead = seriesOf(metrics, 'tierflow.dead_letters');
  const errors = sumBy(
    failed,
    (series) => text(series, 'error.type'),
    (series) => series.count,
  );
  for (const [type, count] of sumBy(
    dead,
    (series) => text(series, 'error.type') ?? 'unknown',
    (series) => series.value,
  ))
    errors.set(type, (errors.get(type) ?? 0) + count);
  return errors;
}

/** A minute's tokens by model and type: the token usage histogram's sums, and the newer conventions' counter. */
function tokenCounts(metrics: StoredMetrics): Map<string, number> {
  const keyOf = (series: StoredSeries): string | null => {
    const model = text(series, 'gen_ai.request.model');
    const type = text(series, 'gen_ai.token.type');
    return model === null || type === null ? null : JSON.stringify([model, type]);
  };
  const tokens = sumBy(seriesOf(metrics, 'gen_ai.client.token.usage'), keyOf, (series) => (series.kind === 'histogram' ? series.sum : series.value));
  for (const [key, count] of sumBy(seriesOf(metrics, 'gen_ai.client.inference.tokens'), keyOf, (series) => series.value)) tokens.set(key, (tokens.get(key) ?? 0) + count);
  return tokens;
}

/** Adds `sums` into the hour's entry of `hours`. */
function addToHour(hours: Map<number, Map<string, number>>, hour: number, sums: ReadonlyMap<string, number>): void {
  const into = hours.get(hour) ?? new Map<string, number>();
  for (const [key, value] of sums) into.set(key, (into.get(key) ?? 0) + value);
  hours.set(hour, into);
}

/**
 * The /api/metrics answer from the store's minutes of the window (oldest first): per-minute series
 * of runs, pass durations, queue depth and errors, hourly ones of tokens and cost. Points only
 * where the store has figures; a reader takes a missing minute as none. Pure.
 */
export function metricSeries(window: MetricWindow, minutes: readonly StoredMinute[]): MetricsAnswer {
  const series: Series = { runs_per_minute: [], hop_duration: [], queue_depth: [], tokens_per_hour: [], cost_per_hour: [], errors: [] };
  const tokenHours = new Map<number, Map<string, number>>();
  const costHours = new Map<number, Map<string, number>>();
  let dropped = 0;
  for (const { minute, metrics } of minutes) {
    const t = iso(minute * MINUTE_MS);
    dropped += metrics.dropped;
    for (const [status, value] of sumBy(
      seriesOf(metrics, 'tierflow.runs.finished'),
      (one) => text(one, 'tierflow.status'),
      (one) => one.value,
    ))
      series.runs_per_minute.push({ t, status, value });
    for (const quantiles of hopQuantiles(metrics)) series.hop_duration.push({ t, ...quantiles });
    const queued = seriesOf(metrics, QUEUE_DEPTH).filter((one) => QUEUED_STATES.includes(text(one, 'tierflow.queue.state') ?? ''));
    for (const [tier, value] of sumBy(
      queued,
      (one) => text(one, 'tierflow.tier'),
      (one) => one.value,
    ))
      series.queue_depth.push({ t, tier, value });
    for (const [errorType, value] of errorCounts(metrics)) series.errors.push({ t, error_type: errorType, value });
    const hour = Math.floor((minute * MINUTE_MS) / HOUR_MS) * HOUR_MS;
    addToHour(tokenHours, hour, tokenCounts(metrics));
    addToHour(
      costHours,
      hour,
      sumBy(
        seriesOf(metrics, 'tierflow.model.cost'),
        (one) => text(one, 'gen_ai.request.model'),
        (one) => one.value,
      ),
    );
  }
  for (const [hour, sums] of tokenHours) {
    for (const [key, value] of sums) {
      const [model = '', type = ''] = JSON.parse(key) as [string, string];
      series.tokens_per_hour.push({ t: iso(hour), model, type, value });
    }
  }
  for (const [hour, sums] of costHours) for (const [model, value] of sums) series.cost_per_hour.push({ t: iso(hour), model, value });
  const first = minutes[0]?.minute ?? 0;
  const last = minutes.at(-1)?.minute ?? first;
  return { window, step_s: 60, from: iso(first * MINUTE_MS), to: iso((last + 1) * MINUTE_MS), series, dropped };
}
