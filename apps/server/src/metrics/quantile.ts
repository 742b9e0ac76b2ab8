/** A histogram bucket as Prometheus has it: an upper bound and the count up to it (cumulative). */
export interface CumulativeBucket {
  readonly le: number;
  readonly count: number;
}

/**
 * The `q` quantile of a histogram, as Prometheus's histogram_quantile computes it: linear
 * interpolation inside the bucket the rank falls in, the first bucket starting at 0 (unless its
 * bound is not above 0), and the highest finite bound for a rank in the +Inf bucket. Null where
 * Prometheus answers NaN: no observations, fewer than two buckets, or no +Inf bucket. Pure.
 */
export function histogramQuantile(q: number, buckets: readonly CumulativeBucket[]): number | null {
  if (Number.isNaN(q)) return null;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  if (sorted.length < 2 || sorted.at(-1)!.le !== Infinity) return null;
  // Counts that go down (buckets read at slightly different moments) are held level, as Prometheus does.
  let highest = 0;
  const counts = sorted.map((bucket) => (highest = Math.max(highest, bucket.count)));
  const total = counts.at(-1)!;
  if (total === 0) return null;
  let rank = q * total;
  const b = counts.findIndex((count) => count >= rank);
  if (b === sorted.length - 1) return sorted[sorted.length - 2]!.le;
  if (b === 0 && sorted[0]!.le <= 0) return sorted[0]!.le;
  const start = b === 0 ? 0 : sorted[b - 1]!.le;
  const end = sorted[b]!.le;
  let count = counts[b]!;
  if (b > 0) {
    count -= counts[b - 1]!;
    rank -= counts[b - 1]!;
  }
  return start + (end - start) * (rank / count);
}
