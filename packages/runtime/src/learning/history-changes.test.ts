import { BeadsStore } from '@tierflow/beads';
import { recentHalfLifeMs, type LearningRecord } from '@tierflow/core';
import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { historyWrites, readHistoryWrites } from './history-changes.js';
import { modelHistoryKey, recentHistoryKey, routingAccuracyKey, specialistHistoryKey } from './history-keys.js';
import { historyFold } from './history-writes.js';
import { learningRecord } from '../testing/learning-record.js';
import { readSpecialistStats } from './specialist-history.js';

const db = usePrivateRedis();
const H = 80_000;
const T0 = 1_700_000_000_000;

describe('historyWrites', () => {
  it('sends a specialist’s add to its long and recent histories, and the others as they are', () => {
    const fold = historyFold([learningRecord({ model: 'qwen', routing: { mode: 'fixed', reason: 'fixed', fixed: 'sim', learned: null, expected_gain: null } })]);
    const { adds, changes } = historyWrites(fold, () => null, T0, H);
    expect(adds.map((add) => [add.key, add.halfLifeMs])).toEqual([
      [specialistHistoryKey('execute_code', 'sim'), H],
      [recentHistoryKey('execute_code', 'sim'), recentHalfLifeMs(H)],
      [modelHistoryKey('execute_code', 'sim', 'qwen'), H],
      [routingAccuracyKey(), H],
      [routingAccuracyKey('execute_code'), H],
    ]);
    expect(changes).toEqual([]);
  });
});

describe('readHistoryWrites over Redis', () => {
  /** Folds `records` at `now` as the Monitor does; the changes it saw. */
  async function fold(beads: BeadsStore, records: readonly LearningRecord[], now: number) {
    const writes = await readHistoryWrites(beads, historyFold(records), now, H);
    for (const add of writes.adds) await beads.addDecayed(add.key, add.increments, { halfLifeMs: add.halfLifeMs, now });
    return writes.changes;
  }

  it('a favourite gone bad loses its good name within a few runs, where the long history alone would keep it', async () => {
    const beads = new BeadsStore(db.redis, { tier: 'PROGRESS_MONITOR', prefix: uniquePrefix('history-changes') });
    for (let i = 0; i < 100; i++) expect(await fold(beads, [learningRecord({ status: i % 10 === 3 ? 'failed' : 'success' })], T0 + i * 1000)).toEqual([]);
    const seen: number[] = [];
    for (let i = 100; i < 110; i++) if ((await fold(beads, [learningRecord({ status: 'failed' })], T0 + i * 1000)).length > 0) seen.push(i);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]! - 100).toBeLessThan(8);
    const stats = (await readSpecialistStats(beads, 'execute_code', ['sim'], T0 + 110_000)).get('sim')!;
    // Without the restart: ten failures on about 60 decayed attempts at 0.9 leave about 0.78.
    expect(stats.success_rate!).toBeLessThan(0.55);
  });
});
