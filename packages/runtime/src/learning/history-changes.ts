import type { Beads } from '@tierflow/beads';
import { foldSpecialistHistory, recentHalfLifeMs, type DecayedSums, type HistoryChange } from '@tierflow/core';
import { readDecayedValues, type HistoryReadOptions } from './history-values.js';
import { recentHistoryKey, specialistHistoryKey } from './history-keys.js';
import type { HistoryFold, HistoryPair } from './history-writes.js';

/** One decayed add with the half-life it is made with. */
export interface TimedHistoryAdd {
  readonly key: string;
  readonly increments: Readonly<Record<string, number>>;
  readonly halfLifeMs: number;
}

/** A specialist whose long history was found stale and replaced by its recent one. */
export interface HistoryChangeNote extends HistoryPair {
  readonly change: HistoryChange;
}

/** What a fold writes: every add with its half-life, and the changes it detected. */
export interface HistoryWrites {
  readonly adds: readonly TimedHistoryAdd[];
  readonly changes: readonly HistoryChangeNote[];
}

/**
 * The writes of `fold` (pure): each specialist's add goes to its long history and its recent one
 * (core's `foldSpecialistHistory` over their values as `valueOf` gives them), so a specialist that
 * changed is seen to within a few attempts; the model and routing-accuracy adds go as they are.
 */
export function historyWrites(fold: HistoryFold, valueOf: (key: string) => DecayedSums | null, now: number, halfLifeMs: number): HistoryWrites {
  const pairOf = new Map(fold.pairs.map((pair) => [specialistHistoryKey(pair.taskType, pair.specialist), pair]));
  const adds: TimedHistoryAdd[] = [];
  const changes: HistoryChangeNote[] = [];
  for (const add of fold.adds) {
    const pair = pairOf.get(add.key);
    if (pair === undefined) {
      adds.push({ ...add, halfLifeMs });
      continue;
    }
    const recentKey = recentHistoryKey(pair.taskType, pair.specialist);
    const folded = foldSpecialistHistory(valueOf(add.key), valueOf(recentKey), add.increments, now, halfLifeMs);
    adds.push({ key: add.key, increments: folded.long, halfLifeMs }, { key: recentKey, increments: folded.recent, halfLifeMs: recentHalfLifeMs(halfLifeMs) });
    if (folded.change) changes.push({ ...pair, change: folded.change });
  }
  return { adds, changes };
}

/** {@link historyWrites} over the specialists' two histories as they stand, read in one read (unreadable ones count as none). */
export async function readHistoryWrites(beads: Pick<Beads, 'getMany'>, fold: HistoryFold, now: number, halfLifeMs: number, options: HistoryReadOptions = {}): Promise<HistoryWrites> {
  const keys = fold.pairs.flatMap((pair) => [specialistHistoryKey(pair.taskType, pair.specialist), recentHistoryKey(pair.taskType, pair.specialist)]);
  const values = await readDecayedValues(beads, keys, options);
  const read = new Map(keys.map((key, i) => [key, values[i] ?? null]));
  return historyWrites(fold, (key) => read.get(key) ?? null, now, halfLifeMs);
}
