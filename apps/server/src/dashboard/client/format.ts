import { age } from './age.js';
import type { Progress, Usage } from './api-types.js';

// How the dashboard words numbers and times: as `tierflow watch` and `tierflow runs` do. Pure.

/** A run's or a node's duration: to a tenth of a second under ten seconds, then as an age. */
export function duration(ms: number): string {
  return ms < 10_000 ? `${(Math.max(0, ms) / 1000).toFixed(1)} s` : age(ms);
}

/** How long a node has run, or ran; empty before it started. */
export function elapsed(startedAt: string | null, finishedAt: string | null, now: number): string {
  if (startedAt === null) return '';
  return duration((finishedAt === null ? now : Date.parse(finishedAt)) - Date.parse(startedAt));
}

/** `40% loading the data`, `40%`, or the note alone. */
export function progressText(progress: Progress): string {
  return [progress.percent === null ? '' : `${progress.percent}%`, progress.note ?? ''].filter((part) => part !== '').join(' ');
}

/** `2,410` tokens, in and out together. */
export function tokenCount(usage: Usage): string {
  return (usage.tokens_in + usage.tokens_out).toLocaleString('en-US');
}

/** `$0.0042`: costs are kept to a millionth of a dollar, shown without trailing zeros; empty when free. */
export function cost(usage: Usage): string {
  return usd(usage.cost_usd);
}

/** An amount of USD as {@link cost} shows it. */
export function usd(amount: number): string {
  return amount > 0 ? `$${Number(amount.toFixed(6)).toString()}` : '';
}

/** A node's id, short: the root's first eight characters, and below it only what the node adds to the root's id. */
export function shortId(id: string, rootId: string): string {
  const head = rootId.length > 12 ? `${rootId.slice(0, 8)}…` : rootId;
  return id.startsWith(rootId) ? `${head}${id.slice(rootId.length)}` : id;
}

/** A clock time in the browser's zone, to the second: `14:03:07`. */
export function clock(iso: string): string {
  const time = new Date(iso);
  return Number.isNaN(time.getTime()) ? iso : time.toLocaleTimeString('en-GB', { hour12: false });
}

/**
 * A deadline as a person reads it: its time when it falls today, with its date (and year, when
 * not this one) on any other day, so a deadline tomorrow does not read as one passed this morning.
 */
export function deadline(iso: string, now: number = Date.now()): string {
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso;
  const today = new Date(now);
  if (time.toDateString() === today.toDateString()) return clock(iso);
  const sameYear = time.getFullYear() === today.getFullYear();
  const date = time.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', ...(sameYear ? {} : { year: 'numeric' }) });
  return `${date} ${clock(iso)}`;
}

/** The tier's short name, as the `tierflow` command prints it. */
export function tierSlug(tier: string): string {
  const slugs: Readonly<Record<string, string>> = { PROGRESS_MONITOR: 'monitor', ABSTRACT_ARCHITECT: 'architect', ROUTING_DISPATCHER: 'dispatcher', SPECIALIZED_FLEET: 'fleet' };
  return slugs[tier] ?? tier.toLowerCase();
}
