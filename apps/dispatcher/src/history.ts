import type { HistoryPair } from '@tierflow/runtime/policy';
import { readPairStats } from '@tierflow/runtime/policy';
import type { TierContext } from '@tierflow/runtime';
import type { HistoryOf } from './choose-route.js';

const NONE: HistoryOf = () => null;

/**
 * The history of the given task type × specialist pairs, decayed to `now`, in one Beads read (the
 * round's only one): what the Monitor learned from earlier runs (docs/operations.md#routing-modes).
 * No pairs, no read. A pair without readable history has none (the reader warns); a Redis failure
 * fails the pass, which is tried again.
 */
export async function readHistory(context: Pick<TierContext, 'beads' | 'log'>, pairs: readonly HistoryPair[], now: number): Promise<HistoryOf> {
  const unique = new Map(pairs.map((pair) => [keyOf(pair.taskType, pair.specialist), pair]));
  if (unique.size === 0) return NONE;
  const found = await readPairStats(context.beads, [...unique.values()], now, { log: context.log });
  const stats = new Map(found.map((pair) => [keyOf(pair.task_type, pair.specialist), pair.stats]));
  return (taskType, specialist) => stats.get(keyOf(taskType, specialist)) ?? null;
}

// JSON of the pair: no separator a name could contain can make two pairs one.
function keyOf(taskType: string, specialist: string): string {
  return JSON.stringify([taskType, specialist]);
}
