import type { RunTimeline } from './api-types.js';

/** A bar of the timeline: where it starts and how wide it is, in percent of the axis. */
export interface TimelineBar {
  readonly kind: RunTimeline['nodes'][number]['spans'][number]['kind'];
  readonly left: number;
  readonly width: number;
  /** Its length, ms; and whether it still goes on. */
  readonly ms: number;
  readonly open: boolean;
}

export interface TimelineRow {
  readonly id: string;
  readonly depth: number;
  readonly tier: string;
  readonly status: string;
  readonly bars: readonly TimelineBar[];
}

export interface TimelineLayout {
  readonly rows: readonly TimelineRow[];
  /** The axis's length, ms. */
  readonly span: number;
  /** Ticks along the axis: where (percent) and what (ms from the start). */
  readonly ticks: readonly { readonly left: number; readonly ms: number }[];
}

/** The timeline laid out on one axis, from its first start to its end (or `now` while something goes on). Pure. */
export function timelineLayout(timeline: RunTimeline, now: number): TimelineLayout {
  const start = timeline.start;
  if (start === null) return { rows: timeline.nodes.map((node) => ({ ...rowOf(node), bars: [] })), span: 0, ticks: [] };
  const end = Math.max(start + 1, timeline.end ?? now, ...timeline.nodes.flatMap((node) => node.spans.map((s) => s.to ?? now)));
  const span = end - start;
  const at = (ms: number): number => ((ms - start) / span) * 100;
  const rows = timeline.nodes.map((node) => ({
    ...rowOf(node),
    bars: node.spans.map((s) => {
      const to = s.to ?? Math.max(now, s.from);
      return { kind: s.kind, left: at(s.from), width: Math.max(0, at(to) - at(s.from)), ms: to - s.from, open: s.to === null };
    }),
  }));
  return { rows, span, ticks: ticksOf(span).map((ms) => ({ left: (ms / span) * 100, ms })) };
}

function rowOf(node: RunTimeline['nodes'][number]): Omit<TimelineRow, 'bars'> {
  return { id: node.id, depth: node.depth, tier: node.tier, status: node.status };
}

/** Round steps (1, 2 or 5 times a power of ten ms) that put at most six steps on the axis. */
function ticksOf(span: number): number[] {
  const raw = span / 5;
  const power = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => span / s <= 6) ?? power * 10;
  const ticks: number[] = [];
  for (let ms = 0; ms <= span; ms += step) ticks.push(ms);
  return ticks;
}
