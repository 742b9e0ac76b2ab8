import { OUTCOME_STATUSES, type OutcomeStatus } from '@tierflow/protocol';
import { type DecayedSums, decaySums } from './decayed-sums.js';
import type { LearningRecord } from './learning-record.js';

/**
 * The sums fields of a specialist's history (CORE's own; other packages read {@link specialistStats}):
 *
 * | Field                               | Adds, per record                                                     |
 * | ----------------------------------- | -------------------------------------------------------------------- |
 * | `st.<status>`                       | 1 under the record's status (cancelled included)                     |
 * | `n`, `ok`                           | 1 per judged attempt (any status but cancelled); 1 more if `success` |
 * | `cal.<bin>.n`, `.conf`, `.ok`       | 1, the reported confidence, 1 if `success`, in its tenth (0–9)       |
 * | `lat`, `lat.<bucket>`               | the latency; 1 in its quarter-octave bucket                          |
 * | `tin`, `tout`, `cost`, `surp`       | tokens in and out, cost in USD, 1 if surprising                      |
 *
 * A cancelled attempt (a higher tier stopped it, or it lost a race) says nothing of the specialist,
 * so it counts under `st.cancelled` only.
 */
export function historyIncrements(record: LearningRecord): Record<string, number> {
  const increments: Record<string, number> = { [`st.${record.status}`]: 1 };
  if (record.status === 'cancelled') return increments;
  const ok = record.status === 'success' ? 1 : 0;
  const bin = calibrationBinOf(record.confidence);
  increments.n = 1;
  increments.ok = ok;
  increments[`cal.${bin}.n`] = 1;
  increments[`cal.${bin}.conf`] = record.confidence;
  increments[`cal.${bin}.ok`] = ok;
  increments.lat = record.latency_ms;
  increments[`lat.${latencyBucketOf(record.latency_ms)}`] = 1;
  increments.tin = record.tokens_in;
  increments.tout = record.tokens_out;
  increments.cost = record.cost_usd;
  increments.surp = record.surprise ? 1 : 0;
  return increments;
}

/** One tenth of the confidence scale: how often the specialist was right when it reported a confidence in [from, to). */
export interface CalibrationBin {
  readonly from: number;
  readonly to: number;
  /** Decayed attempts reported in this bin. */
  readonly samples: number;
  readonly mean_reported: number | null;
  readonly success_rate: number | null;
}

/** A specialist's history, decayed to the moment asked. Counts are decayed, so fractional. */
export interface SpecialistStats {
  /** Decayed count of judged attempts (cancelled ones are not). */
  readonly samples: number;
  readonly by_status: Readonly<Partial<Record<OutcomeStatus, number>>>;
  /** Successes / samples; null with no samples. */
  readonly success_rate: number | null;
  /** Ten bins of width 0.1 (the last includes 1); `ece` is the expected calibration error, the samples-weighted mean |reported − success rate|. */
  readonly calibration: { readonly bins: readonly CalibrationBin[]; readonly ece: number | null };
  /** From a quarter-octave histogram (within about 10 %); the mean is exact. */
  readonly latency_ms: { readonly p50: number; readonly p95: number; readonly p99: number; readonly mean: number } | null;
  readonly mean_tokens_in: number | null;
  readonly mean_tokens_out: number | null;
  readonly mean_cost_usd: number | null;
  /** Decayed count of surprising attempts. */
  readonly surprises: number;
}

export const CALIBRATION_BINS = 10;
/** Latency buckets per octave: bucket b holds latencies in [2^(b/4) − 1, 2^((b+1)/4) − 1) ms. */
const BUCKETS_PER_OCTAVE = 4;
/** 2^40 ms is 35 years: anything longer shares the last bucket. */
const MAX_LATENCY_BUCKET = 40 * BUCKETS_PER_OCTAVE;
/** Below this, a decayed count is no sample at all. */
const NEGLIGIBLE = 1e-9;

/** The bin of a confidence: its tenth, 1 included in the last. */
export function calibrationBinOf(confidence: number): number {
  // The epsilon keeps 0.3, 0.6, 0.7 … (not exact in binary) in the bin they name.
  return Math.min(CALIBRATION_BINS - 1, Math.max(0, Math.floor(confidence * CALIBRATION_BINS + 1e-9)));
}

function latencyBucketOf(latencyMs: number): number {
  return Math.min(MAX_LATENCY_BUCKET, Math.max(0, Math.floor(Math.log2(1 + latencyMs) * BUCKETS_PER_OCTAVE)));
}

const bucketLow = (bucket: number): number => 2 ** (bucket / BUCKETS_PER_OCTAVE) - 1;

const EMPTY_BINS: readonly CalibrationBin[] = Array.from({ length: CALIBRATION_BINS }, (_, bin) => ({
  from: bin / CALIBRATION_BINS,
  to: (bin + 1) / CALIBRATION_BINS,
  samples: 0,
  mean_reported: null,
  success_rate: null,
}));

export const EMPTY_SPECIALIST_STATS: SpecialistStats = {
  samples: 0,
  by_status: {},
  success_rate: null,
  calibration: { bins: EMPTY_BINS, ece: null },
  latency_ms: null,
  mean_tokens_in: null,
  mean_tokens_out: null,
  mean_cost_usd: null,
  surprises: 0,
};

/** The statistics of a history value, decayed to `now` first. Null (no history) gives {@link EMPTY_SPECIALIST_STATS}. */
export function specialistStats(value: DecayedSums | null, now: number): SpecialistStats {
  if (value === null) return EMPTY_SPECIALIST_STATS;
  const { sums } = decaySums(value, now);
  // A sum is never negative; a corrupt one must not make a rate above 1.
  const sum = (field: string): number => Math.max(0, sums[field] ?? 0);
  const samples = sum('n');
  const some = samples > NEGLIGIBLE;
  const meanOf = (field: string): number | null => (some ? sum(field) / samples : null);

  const by_status: Partial<Record<OutcomeStatus, number>> = {};
  for (const status of OUTCOME_STATUSES) {
    const count = sum(`st.${status}`);
    if (count > NEGLIGIBLE) by_status[status] = count;
  }
  return {
    samples: some ? samples : 0,
    by_status,
    success_rate: some ? Math.min(1, sum('ok') / samples) : null,
    calibration: calibrationOf(sum),
    latency_ms: some ? latencyOf(sums, sum('lat') / samples) : null,
    mean_tokens_in: meanOf('tin'),
    mean_tokens_out: meanOf('tout'),
    mean_cost_usd: meanOf('cost'),
    surprises: sum('surp'),
  };
}

function calibrationOf(sum: (field: string) => number): SpecialistStats['calibration'] {
  let total = 0;
  let gap = 0;
  const bins = EMPTY_BINS.map((empty, bin): CalibrationBin => {
    const samples = sum(`cal.${bin}.n`);
    if (samples <= NEGLIGIBLE) return empty;
    const mean_reported = Math.min(1, sum(`cal.${bin}.conf`) / samples);
    const success_rate = Math.min(1, sum(`cal.${bin}.ok`) / samples);
    total += samples;
    gap += samples * Math.abs(mean_reported - success_rate);
    return { ...empty, samples, mean_reported, success_rate };
  });
  return { bins, ece: total > NEGLIGIBLE ? gap / total : null };
}

function latencyOf(sums: Readonly<Record<string, number>>, mean: number): NonNullable<SpecialistStats['latency_ms']> {
  const buckets: [number, number][] = [];
  let total = 0;
  for (const [field, weight] of Object.entries(sums)) {
    const match = /^lat\.(\d+)$/.exec(field);
    if (match?.[1] === undefined || !(weight > 0)) continue;
    buckets.push([Number(match[1]), weight]);
    total += weight;
  }
  buckets.sort((a, b) => a[0] - b[0]);
  const percentile = (q: number): number => {
    if (total <= 0) return mean;
    const target = q * total;
    let below = 0;
    for (const [bucket, weight] of buckets) {
      if (below + weight >= target) {
        // Spread the bucket's weight evenly over its range.
        const low = bucketLow(bucket);
        return low + ((target - below) / weight) * (bucketLow(bucket + 1) - low);
      }
      below += weight;
    }
    const last = buckets[buckets.length - 1]?.[0] ?? 0;
    return bucketLow(last + 1);
  };
  return { p50: percentile(0.5), p95: percentile(0.95), p99: percentile(0.99), mean };
}
