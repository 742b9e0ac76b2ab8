import type { Beads } from '@tierflow/beads';
import { revisionStats, specialistStats, type RevisionStats, type SpecialistStats } from '@tierflow/core';
import { readDecayedValue, readDecayedValues, type HistoryReadOptions } from './history-values.js';
import { revisionHistoryKey, specialistHistoryKey } from './history-keys.js';
import type { PairStats } from './bottlenecks.js';
import type { HistoryPair } from './history-writes.js';

/**
 * The history of each of `specialists` on `taskType`, decayed to `now`, in one read (one MGET).
 * A specialist without history, or whose history cannot be read (warned), is absent from the map.
 */
export async function readSpecialistStats(
  beads: Pick<Beads, 'getMany'>,
  taskType: string,
  specialists: readonly string[],
  now: number,
  options: HistoryReadOptions = {},
): Promise<Map<string, SpecialistStats>> {
  const names = [...new Set(specialists)];
  const values = await readDecayedValues(
    beads,
    names.map((specialist) => specialistHistoryKey(taskType, specialist)),
    options,
  );
  const stats = new Map<string, SpecialistStats>();
  names.forEach((specialist, i) => {
    const value = values[i];
    if (value) stats.set(specialist, specialistStats(value, now));
  });
  return stats;
}

/** How the revisions of `taskType` went, decayed to `now`; null without (readable) history. */
export async function readRevisionStats(beads: Pick<Beads, 'get'>, taskType: string, now: number, options: HistoryReadOptions = {}): Promise<RevisionStats | null> {
  const value = await readDecayedValue(beads, revisionHistoryKey(taskType), options);
  return value ? revisionStats(value, now) : null;
}

/** The history of task type × specialist pairs (of any task types), decayed to `now`, in one read; pairs without (readable) history are left out. */
export async function readPairStats(beads: Pick<Beads, 'getMany'>, pairs: readonly HistoryPair[], now: number, options: HistoryReadOptions = {}): Promise<PairStats[]> {
  const values = await readDecayedValues(
    beads,
    pairs.map((pair) => specialistHistoryKey(pair.taskType, pair.specialist)),
    options,
  );
  return pairs.flatMap((pair, i) => {
    const value = values[i];
    return value ? [{ task_type: pair.taskType, specialist: pair.specialist, stats: specialistStats(value, now) }] : [];
  });
}
