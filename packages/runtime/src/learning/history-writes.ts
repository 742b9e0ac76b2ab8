import { historyIncrements, type LearningRecord } from '@tierflow/core';
import { isValidKey } from './history-values.js';
import { modelHistoryKey, recentHistoryKey, routingAccuracyKey, specialistHistoryKey } from './history-keys.js';
import { routingIncrements } from './routing-accuracy.js';

/** One decayed add: a key and what to add to its sums. */
export interface HistoryAdd {
  readonly key: string;
  readonly increments: Readonly<Record<string, number>>;
}

/** A task type × specialist pair some records touched. */
export interface HistoryPair {
  readonly taskType: string;
  readonly specialist: string;
}

/** What a run's learning records add to the history. */
export interface HistoryFold {
  /** One per key, the records' increments summed: the specialists', their models', the routing accuracy's (global and per task type). */
  readonly adds: readonly HistoryAdd[];
  /** The pairs whose history changed, in the order first met. */
  readonly pairs: readonly HistoryPair[];
  /** Records whose names make no Beads key (too long), left out. */
  readonly skipped: number;
}

/**
 * The decayed adds a run's learning records make (docs/protocol.md#beads-keys): each record into
 * its specialist's history and its model's, its routing decision into the routing accuracy,
 * globally and for its task type. Records of one key are summed, so a key costs one add. Pure.
 */
export function historyFold(records: readonly LearningRecord[]): HistoryFold {
  const sums = new Map<string, Record<string, number>>();
  const pairs = new Map<string, HistoryPair>();
  let skipped = 0;
  const add = (key: string, increments: Readonly<Record<string, number>>): void => {
    const sum = sums.get(key) ?? {};
    for (const [field, value] of Object.entries(increments)) sum[field] = (sum[field] ?? 0) + value;
    sums.set(key, sum);
  };
  for (const record of records) {
    const { task_type: taskType, specialist, model } = record;
    const specialistKey = specialistHistoryKey(taskType, specialist);
    const modelKey = model === null ? null : modelHistoryKey(taskType, specialist, model);
    // The recent key is the specialist's plus a segment: if it makes a key, both do.
    if (!isValidKey(recentHistoryKey(taskType, specialist)) || (modelKey !== null && !isValidKey(modelKey)) || !isValidKey(routingAccuracyKey(taskType))) {
      skipped += 1;
      continue;
    }
    const increments = historyIncrements(record);
    add(specialistKey, increments);
    if (modelKey !== null) add(modelKey, increments);
    const routing = routingIncrements(record);
    if (routing !== null) {
      add(routingAccuracyKey(), routing);
      add(routingAccuracyKey(taskType), routing);
    }
    if (!pairs.has(specialistKey)) pairs.set(specialistKey, { taskType, specialist });
  }
  return { adds: [...sums].map(([key, increments]) => ({ key, increments })), pairs: [...pairs.values()], skipped };
}
