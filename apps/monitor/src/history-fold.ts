import { learningRecordsOf } from '@tierflow/core';
import { fastSafeParse, isTierflowError, type OutcomePayload } from '@tierflow/protocol';
import { BOTTLENECKS_KEY, bottlenecksSchema, historyFold, rankBottlenecks, readHistoryWrites, readPairStats, type Bottlenecks, type HistoryPair } from '@tierflow/runtime/policy';
import type { TierContext } from '@tierflow/runtime';
import type { BottleneckSchedule } from './bottleneck-schedule.js';

/** `system/bottlenecks` is kept as long as a run's history: refreshed by every fold. */
export const BOTTLENECKS_TTL_MS = 30 * 24 * 3600_000;

/**
 * Folds every learning record of an Architect's outcome (every leaf attempt of the tree) into
 * the history (docs/protocol.md#beads-keys): each specialist's decayed sums (restarted from its
 * recent ones when the two disagree, core's `foldSpecialistHistory`), each model's, the
 * routing accuracy, then, when `schedule` says so, `system/bottlenecks` brought up to date for the
 * pairs touched and those it lists. The adds go out with the pass's step, as its other writes do.
 * History is advice: a failure to keep it is warned, and the run goes on.
 */
export async function foldHistory(context: TierContext, outcome: OutcomePayload, halfLifeMs: number, schedule: BottleneckSchedule): Promise<void> {
  try {
    const { records, dropped } = learningRecordsOf(outcome);
    if (dropped > 0) context.log.warn('learning records dropped (unreadable, or beyond the cap)', { dropped });
    if (records.length === 0) return;
    const fold = historyFold(records);
    if (fold.skipped > 0) context.log.warn('learning records whose names make no Beads key, not kept', { skipped: fold.skipped });
    const now = context.now();
    const writes = await readHistoryWrites(context.beads, fold, now, halfLifeMs, { log: context.log });
    for (const { taskType, specialist, change } of writes.changes)
      context.log.info('a specialist’s recent results disagree with its history: its history restarts from them', { task_type: taskType, specialist, ...change });
    for (const add of writes.adds) await context.beads.addDecayed(add.key, add.increments, { halfLifeMs: add.halfLifeMs, now });
    const ranked = fold.pairs.length > 0 ? schedule.take(fold.pairs, now) : null;
    if (ranked) await refreshBottlenecks(context, ranked, now);
  } catch (error) {
    context.log.warn('cannot keep the history of this outcome', { error: String(error) });
  }
}

/** Re-ranks the pairs just touched with those listed already, their history read (with the adds just made) in one read. */
async function refreshBottlenecks(context: TierContext, touched: readonly HistoryPair[], now: number): Promise<void> {
  const listed = (await readBottlenecks(context))?.bottlenecks.map((entry) => ({ taskType: entry.task_type, specialist: entry.specialist })) ?? [];
  const pairs = new Map([...touched, ...listed].map((pair) => [JSON.stringify([pair.taskType, pair.specialist]), pair]));
  const stats = await readPairStats(context.beads, [...pairs.values()], now, { log: context.log });
  const value: Bottlenecks = { updated_at: new Date(now).toISOString(), bottlenecks: rankBottlenecks(stats) };
  await context.beads.set(BOTTLENECKS_KEY, value, { ttlMs: BOTTLENECKS_TTL_MS });
}

/** The bottlenecks kept so far; unreadable ones are started afresh. */
async function readBottlenecks(context: TierContext): Promise<Bottlenecks | null> {
  let value: unknown;
  try {
    value = await context.beads.get(BOTTLENECKS_KEY);
  } catch (error) {
    if (!isTierflowError(error) || error.code !== 'beads_corrupt') throw error;
    return null;
  }
  const parsed = value === null ? null : fastSafeParse(bottlenecksSchema, value);
  return parsed?.success ? parsed.data : null;
}
