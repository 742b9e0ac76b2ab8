import type { HistoryPair } from '@tierflow/runtime/policy';

/**
 * How often at most one Monitor re-ranks `system/bottlenecks` for pairs it has ranked before: a
 * ranking for people, not worth reading every listed pair's history and writing the list again
 * on every run (that cost a third of a root's throughput; test/bench/RESULTS.md).
 */
export const BOTTLENECKS_REFRESH_MS = 5_000;

/** The most pairs a Monitor remembers (touched since its last ranking, or ranked): past them, it ranks at once and forgets. */
const REMEMBERED_PAIRS = 1_000;

/**
 * When a Monitor re-ranks the bottlenecks (0: on every run): at once for a pair it has never
 * ranked, so a new one is listed with the run that brought it; otherwise at most every
 * `intervalMs`, with every pair touched since. The histories themselves are kept on every run.
 */
export class BottleneckSchedule {
  private last = Number.NEGATIVE_INFINITY;
  private readonly ranked = new Set<string>();
  private readonly pending = new Map<string, HistoryPair>();

  constructor(private readonly intervalMs: number = BOTTLENECKS_REFRESH_MS) {}

  /** The pairs to re-rank now with those listed (the run's and those touched since the last ranking), or null: not yet. */
  take(touched: readonly HistoryPair[], now: number): HistoryPair[] | null {
    let unknown = false;
    for (const pair of touched) {
      const key = JSON.stringify([pair.taskType, pair.specialist]);
      if (!this.ranked.has(key)) unknown = true;
      this.pending.set(key, pair);
    }
    if (!unknown && now - this.last < this.intervalMs && this.pending.size < REMEMBERED_PAIRS) return null;
    this.last = now;
    const pairs = [...this.pending.values()];
    if (this.ranked.size + this.pending.size > REMEMBERED_PAIRS) this.ranked.clear();
    for (const key of this.pending.keys()) this.ranked.add(key);
    this.pending.clear();
    return pairs;
  }
}
