// How a specialist's history is worded in the terminal (`tierflow stats`) and on the dashboard's
// Specialists page alike. Like age.ts it lives with the dashboard's client, which the browser
// loads unbundled from this folder; the CLI imports it as `@tierflow/server/specialist-words`.
// No imports, so it runs as it is in either: the shapes below are the parts of the history report
// (HistoryReport) it reads. Pure.

/** A calibration bin: how many (decayed) samples reported a confidence in it, their mean report, and how often they succeeded. */
export interface BinFigures {
  readonly samples: number;
  readonly mean_reported: number | null;
  readonly success_rate: number | null;
}

/** A task type's routing figures, as the history report gives them. */
export interface RoutingFigures {
  readonly routed: number;
  readonly first_choice_success_rate: number | null;
  readonly shadow: { readonly decisions: number; readonly differs: number; readonly mean_expected_gain: number | null } | null;
}

/** How far reported confidence and success may differ, on average, before a specialist is called over- or under-confident. */
export const LEAN_MARGIN = 0.05;

export type Lean = 'over-confident' | 'under-confident' | 'calibrated';

/**
 * Which way a specialist's confidence leans: its bins' mean reported confidence minus how often
 * they succeeded, weighed by samples. Over-confident when it reports more than it delivers by
 * {@link LEAN_MARGIN} or more, under-confident when less; null without a bin to judge by.
 */
export function calibrationLean(bins: readonly BinFigures[]): { readonly gap: number; readonly lean: Lean } | null {
  let weight = 0;
  let sum = 0;
  for (const bin of bins) {
    if (bin.samples <= 0 || bin.mean_reported === null || bin.success_rate === null) continue;
    weight += bin.samples;
    sum += bin.samples * (bin.mean_reported - bin.success_rate);
  }
  if (weight === 0) return null;
  const gap = sum / weight;
  return { gap, lean: gap >= LEAN_MARGIN ? 'over-confident' : gap <= -LEAN_MARGIN ? 'under-confident' : 'calibrated' };
}

/** `ECE 0.12 over-confident`, `ECE 0.02 calibrated`; `-` before there is enough history to say. */
export function calibrationText(calibration: { readonly bins: readonly BinFigures[]; readonly ece: number | null }): string {
  const lean = calibrationLean(calibration.bins);
  if (calibration.ece === null || lean === null) return '-';
  return `ECE ${calibration.ece.toFixed(2)} ${lean.lean}`;
}

/** A rate in [0, 1] as a whole percentage (`88%`); `-` when there is none. */
export function percent(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? '-' : `${Math.round(rate * 100)}%`;
}

/** A decayed count: whole from 10 up, to a tenth below (`42`, `3.5`), so a fading history reads as one. */
export function decayedCount(count: number): string {
  return count >= 10 ? Math.round(count).toLocaleString('en-US') : Number(count.toFixed(1)).toString();
}

/** A latency: `350 ms` under a second, `1.2 s` under a minute, then minutes; `-` when none. */
export function latency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** A mean token count, whole (`1,204`); `-` when none was used. */
export function tokens(count: number | null | undefined): string {
  return count === null || count === undefined || count <= 0 ? '-' : Math.round(count).toLocaleString('en-US');
}

/** A mean cost in USD to a millionth of a dollar (`$0.0042`); `-` when free. */
export function meanUsd(amount: number | null | undefined): string {
  return amount === null || amount === undefined || amount <= 0 ? '-' : `$${Number(amount.toFixed(6)).toString()}`;
}

/** A difference of expected scores, signed: `+0.04`, `-0.10`. */
export function signedGain(gain: number): string {
  return `${gain >= 0 ? '+' : ''}${gain.toFixed(2)}`;
}

/**
 * A task type's routing in a sentence: how many choices were recorded and how often the first
 * choice succeeded; in shadow mode, how often learned routing would have chosen otherwise and
 * what it expected to gain. Null when nothing was routed.
 */
export function routingText(routing: RoutingFigures | null): string | null {
  if (routing === null || routing.routed <= 0) return null;
  const parts = [`${decayedCount(routing.routed)} routed, the first choice succeeded in ${percent(routing.first_choice_success_rate)}`];
  const shadow = routing.shadow;
  if (shadow !== null && shadow.decisions > 0) {
    const gain = shadow.mean_expected_gain === null ? '' : `, expected gain ${signedGain(shadow.mean_expected_gain)}`;
    parts.push(`shadow: learned routing would have chosen otherwise in ${decayedCount(shadow.differs)} of ${decayedCount(shadow.decisions)}${gain}`);
  }
  return parts.join('; ');
}
