import { BeadsStore, type Beads } from '@tierflow/beads';
import { revisionIncrements, type LearningRecord } from '@tierflow/core';
import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { BOTTLENECK_MIN_SAMPLES } from './bottlenecks.js';
import { modelHistoryKey, revisionHistoryKey, routingAccuracyKey, specialistHistoryKey } from './history-keys.js';
import { historyReportSchema, readHistoryReport } from './history-report.js';
import { historyFold } from './history-writes.js';
import { learningRecord } from '../testing/learning-record.js';
import { readPairStats, readRevisionStats, readSpecialistStats } from './specialist-history.js';

const db = usePrivateRedis();
const DAY = 86_400_000;
const T0 = 1_700_000_000_000;

function monitor(label: string): BeadsStore {
  return new BeadsStore(db.redis, { tier: 'PROGRESS_MONITOR', prefix: uniquePrefix(label) });
}

/** Folds `records` into `beads` as the Monitor does. */
async function fold(beads: BeadsStore, records: readonly LearningRecord[], now = T0): Promise<void> {
  for (const add of historyFold(records).adds) await beads.addDecayed(add.key, add.increments, { halfLifeMs: DAY, now });
}

/** Beads that count the reads made through them. */
function counted(beads: Beads): { beads: Pick<Beads, 'get' | 'getMany' | 'keys'>; reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    beads: {
      get: (key) => (reads.push(`get ${key}`), beads.get(key)),
      getMany: (keys) => (reads.push(`getMany ${keys.length}`), beads.getMany(keys)),
      keys: (pattern) => (reads.push(`keys ${pattern}`), beads.keys(pattern)),
    },
  };
}

const warnings = () => {
  const seen: unknown[] = [];
  return { seen, log: { warn: (message: string, fields?: Record<string, unknown>) => void seen.push({ message, ...fields }) } };
};

describe('readSpecialistStats', () => {
  it('reads every candidate’s history in one read; one without history is absent', async () => {
    const beads = monitor('stats-read');
    await fold(beads, [learningRecord(), learningRecord({ status: 'failed' }), learningRecord({ specialist: 'fast' })]);
    const { beads: reader, reads } = counted(beads);
    const stats = await readSpecialistStats(reader, 'execute_code', ['sim', 'fast', 'never'], T0 + DAY);
    expect(reads).toEqual(['getMany 3']);
    expect([...stats.keys()]).toEqual(['sim', 'fast']);
    expect(stats.get('sim')).toMatchObject({ samples: 1, success_rate: 0.5 });
  });

  it('reads unreadable history as none, warning, and still reads the rest', async () => {
    const beads = monitor('stats-corrupt');
    await fold(beads, [learningRecord({ specialist: 'good' })]);
    await db.redis.set(beads.redisKey(specialistHistoryKey('execute_code', 'not-json')), '{oops');
    await beads.set(specialistHistoryKey('execute_code', 'odd'), { sums: 'none' });
    const { seen, log } = warnings();
    const stats = await readSpecialistStats(beads, 'execute_code', ['good', 'not-json', 'odd', 'x'.repeat(600)], T0, { log });
    expect([...stats.keys()]).toEqual(['good']);
    expect(seen).toHaveLength(2);
  });
});

describe('readRevisionStats and readPairStats', () => {
  it('read what the Monitor keeps, decayed', async () => {
    const beads = monitor('revisions');
    expect(await readRevisionStats(beads, 'write', T0)).toBeNull();
    await beads.addDecayed(revisionHistoryKey('write'), revisionIncrements(2, true), { halfLifeMs: DAY, now: T0 });
    await beads.addDecayed(revisionHistoryKey('write'), revisionIncrements(1, false), { halfLifeMs: DAY, now: T0 });
    const stats = await readRevisionStats(beads, 'write', T0 + DAY);
    expect(stats).not.toBeNull();
    await fold(beads, [learningRecord(), learningRecord({ task_type: 'write', specialist: 'writer' })]);
    const pairs = await readPairStats(
      beads,
      [
        { taskType: 'write', specialist: 'writer' },
        { taskType: 'execute_code', specialist: 'sim' },
        { taskType: 'none', specialist: 'sim' },
      ],
      T0,
    );
    expect(pairs.map((pair) => [pair.task_type, pair.specialist, pair.stats.samples])).toEqual([
      ['write', 'writer', 1],
      ['execute_code', 'sim', 1],
    ]);
  });
});

describe('readHistoryReport', () => {
  it('reports every task type’s specialists, models, routing and bottlenecks, in one SCAN and one read', async () => {
    const beads = monitor('report');
    const routing = { mode: 'shadow' as const, reason: 'fixed' as const, fixed: 'sim', learned: 'fast', expected_gain: 0.2 };
    // Twice the samples a bottleneck needs: a day later, half of them count.
    const slow = Array.from({ length: 2 * BOTTLENECK_MIN_SAMPLES }, (_, i) => learningRecord({ specialist: 'slow', latency_ms: 9_000, status: i === 0 ? 'failed' : 'success', routing }));
    await fold(beads, [...slow, learningRecord({ model: 'qwen', routing }), learningRecord({ task_type: 'write/long', specialist: 'writer', model: 'gpt' })]);
    const { beads: reader, reads } = counted(beads);
    const report = historyReportSchema.parse(await readHistoryReport(reader, { now: T0 + DAY }));
    // Five specialist and model keys, and three of routing accuracy (all, and each task type).
    expect(reads).toEqual(['keys history/specialists/*', 'getMany 8']);
    // A value that is not JSON is warned and counts as none; the others are read one by one.
    await db.redis.set(beads.redisKey(modelHistoryKey('write/long', 'writer', 'broken')), 'nope');
    const { seen, log } = warnings();
    expect(await readHistoryReport(beads, { now: T0 + DAY, log })).toEqual(report);
    expect(seen).toEqual([expect.objectContaining({ key: modelHistoryKey('write/long', 'writer', 'broken') })]);
    expect(report.generated_at).toBe(new Date(T0 + DAY).toISOString());
    expect(report.half_life_ms).toBe(DAY);
    expect(report.routing).toMatchObject({ routed: expect.closeTo(BOTTLENECK_MIN_SAMPLES + 0.5, 9) as number, shadow: { differs: expect.closeTo(BOTTLENECK_MIN_SAMPLES + 0.5, 9) as number } });
    expect(report.task_types.map((type) => type.task_type)).toEqual(['execute_code', 'write/long']);
    const code = report.task_types[0]!;
    expect(code.specialists.map((entry) => entry.specialist)).toEqual(['sim', 'slow']);
    expect(code.specialists[0]!.models.map((entry) => entry.model)).toEqual(['qwen']);
    expect(code.specialists[1]!.stats).toMatchObject({ samples: expect.closeTo(BOTTLENECK_MIN_SAMPLES, 9) as number, success_rate: expect.closeTo(0.9, 9) as number });
    expect(code.routing?.shadow?.mean_expected_gain).toBeCloseTo(0.2, 9);
    expect(report.task_types[1]!.routing).toBeNull();
    expect(report.task_types[1]!.specialists[0]!.models.map((entry) => entry.model)).toEqual(['gpt']);
    expect(report.bottlenecks.map((entry) => [entry.reason, entry.specialist])).toEqual([
      ['slow', 'slow'],
      ['unreliable', 'slow'],
    ]);
  });

  it('reports one task type alone, and nothing when there is no history', async () => {
    const beads = monitor('report-one');
    expect(await readHistoryReport(beads, { now: T0 })).toEqual({ generated_at: new Date(T0).toISOString(), half_life_ms: null, routing: null, task_types: [], bottlenecks: [] });
    await fold(beads, [learningRecord(), learningRecord({ task_type: 'execute', specialist: 'other' })]);
    const report = await readHistoryReport(beads, { taskType: 'execute', now: T0 });
    expect(report.task_types.map((type) => type.task_type)).toEqual(['execute']);
    expect(report.routing).toBeNull();
    expect(await db.redis.exists(beads.redisKey(routingAccuracyKey()))).toBe(0);
  });
});
