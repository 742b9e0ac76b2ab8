import { BeadsStore, type RedisClient } from '@tierflow/beads';
import type { LearningRecord } from '@tierflow/core';
import { historyFold } from '@tierflow/runtime/policy';

/** The history's half-life in these tests: a day, the Monitor's default. */
export const HALF_LIFE_MS = 86_400_000;

/** `count` leaf attempts of `specialist` on `taskType`: `successes` of them succeed; each reported `confidence`. */
export function attempts(count: number, successes: number, base: Pick<LearningRecord, 'task_type' | 'specialist'> & Partial<LearningRecord>): LearningRecord[] {
  return Array.from({ length: count }, (_, index) => ({
    model: null,
    confidence: 0.9,
    latency_ms: 1_000 + 100 * index,
    tokens_in: 300,
    tokens_out: 100,
    cost_usd: 0.001,
    surprise: false,
    routing: null,
    ...base,
    status: index < successes ? 'success' : 'failed',
  }));
}

/** Folds `records` into the history of the deployment under `prefix` as the Monitor does: real decayed adds through Beads, as the Monitor writes them. */
export async function writeHistory(redis: RedisClient, prefix: string, records: readonly LearningRecord[], now: number): Promise<void> {
  const beads = new BeadsStore(redis, { tier: 'PROGRESS_MONITOR', prefix });
  for (const { key, increments } of historyFold(records).adds) await beads.addDecayed(key, increments, { halfLifeMs: HALF_LIFE_MS, now });
}
