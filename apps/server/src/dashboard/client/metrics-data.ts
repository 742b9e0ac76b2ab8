/** Series aligned on one time axis, as a chart draws them: times in seconds, and a value (or a gap) per series at each. */
export interface Aligned {
  readonly times: number[];
  readonly series: { readonly label: string; readonly values: (number | null)[] }[];
}

/** The windows the page offers. */
export const WINDOWS = ['1h', '6h', '24h'] as const;
export type Window = (typeof WINDOWS)[number];

/** The window a page's address asks for (`?window=6h`), 1h when it names none it knows. */
export function windowOf(search: string): Window {
  const asked = new URLSearchParams(search).get('window');
  return (WINDOWS as readonly string[]).includes(asked ?? '') ? (asked as Window) : '1h';
}

/**
 * Points `{ t, … }` as aligned series: one step of `stepMs` from `fromIso` up to `toIso`, one series
 * per label (sorted), and `missing` (0 for counts, null for a gap) where a series has no point. Pure.
 */
export function align<P extends { readonly t: string }>(
  points: readonly P[],
  labelOf: (point: P) => string,
  valueOf: (point: P) => number,
  range: { readonly fromIso: string; readonly toIso: string; readonly stepMs: number },
  missing: 0 | null,
): Aligned {
  const from = Math.floor(Date.parse(range.fromIso) / range.stepMs) * range.stepMs;
  const to = Date.parse(range.toIso);
  const times: number[] = [];
  for (let at = from; at < to; at += range.stepMs) times.push(at / 1000);
  const index = new Map(times.map((time, i) => [time, i]));
  const byLabel = new Map<string, (number | null)[]>();
  for (const point of points) {
    const i = index.get(Date.parse(point.t) / 1000);
    if (i === undefined) continue;
    const label = labelOf(point);
    let values = byLabel.get(label);
    if (!values) {
      values = times.map(() => missing);
      byLabel.set(label, values);
    }
    values[i] = (values[i] ?? 0) + valueOf(point);
  }
  const labels = [...byLabel.keys()].sort();
  return { times, series: labels.map((label) => ({ label, values: byLabel.get(label)! })) };
}

/** Several aligned sets over the same times, as one (their series side by side). Pure. */
export function joinAligned(...sets: readonly Aligned[]): Aligned {
  return { times: sets[0]?.times ?? [], series: sets.flatMap((set) => set.series) };
}
