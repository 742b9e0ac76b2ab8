import type { SpecialistStats } from '@tierflow/core';
import type { OutcomeStatus } from '@tierflow/protocol';

/** Below this much (decayed) history, nothing a specialist does is judged surprising: its habits are not known yet. */
export const SURPRISE_MIN_SAMPLES = 20;
/** A failure surprises from a specialist that succeeds at least this often; a success, from one that succeeds at most 1 − this often. */
export const SURPRISE_SUCCESS_RATE = 0.95;

/**
 * How far past its specialist's 99th percentile a leaf must take to surprise: the percentiles come
 * from quarter-octave buckets (about 19 % wide), so anything closer is within their resolution.
 */
export const SURPRISE_LATENCY_FACTOR = 1.25;

/** What a leaf's outcome is judged by. */
export interface LeafFacts {
  readonly specialist: string;
  readonly status: OutcomeStatus;
  readonly latency_ms: number;
}

const FAILURES: ReadonlySet<OutcomeStatus> = new Set(['failed', 'timeout']);

/**
 * Whether a leaf's outcome lies outside its specialist's history on the task type, and why (null
 * when it does not, or the history is too short to say; `SURPRISE_MIN_SAMPLES`):
 * - it took more than a quarter longer than the specialist's 99th percentile;
 * - it failed (or timed out) where the specialist succeeds at least 95 % of the time;
 * - it succeeded where the specialist fails at least 95 % of the time.
 * A cancelled or throttled leaf never surprises: it says nothing of the specialist. Pure.
 */
export function leafSurprise(leaf: LeafFacts, stats: SpecialistStats | null): string | null {
  if (!stats || stats.samples < SURPRISE_MIN_SAMPLES || leaf.status === 'cancelled' || leaf.status === 'throttled') return null;
  const reasons: string[] = [];
  const p99 = stats.latency_ms?.p99;
  if (p99 !== undefined && leaf.latency_ms > p99 * SURPRISE_LATENCY_FACTOR) reasons.push(`took ${Math.round(leaf.latency_ms)} ms, over ${leaf.specialist}'s p99 of ${Math.round(p99)} ms`);
  const rate = stats.success_rate;
  if (rate !== null && rate >= SURPRISE_SUCCESS_RATE && FAILURES.has(leaf.status)) reasons.push(`${leaf.status} where ${leaf.specialist} succeeds ${percent(rate)} of the time`);
  if (rate !== null && rate <= 1 - SURPRISE_SUCCESS_RATE && leaf.status === 'success') reasons.push(`succeeded where ${leaf.specialist} fails ${percent(1 - rate)} of the time`);
  return reasons.length > 0 ? reasons.join(', ') : null;
}

function percent(rate: number): string {
  return `${Math.round(rate * 1000) / 10} %`;
}
