import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { controlKeys, type ControlKeys } from '../redis/keys.js';
import { FencedBatch } from '../redis/fenced-batch.js';
import { indexAnswer, indexRoot, readIndexPage, readSpending, unindexRoot, type LiveStatuses, type PageRequest } from './run-index.js';
import type { RunFilter } from './run-filter.js';
import type { RunPosition } from './run-cursor.js';

const DAY = 24 * 3600_000;
const NOW = 1_800_000_000_000;

describe('the run index in Redis', () => {
  const db = usePrivateRedis();

  /** A cell with `count` roots a second apart, the newest at NOW; every third failed with a timeout at the Fleet, the last two never answered. */
  async function cell(count: number): Promise<{ keys: ControlKeys; prefix: string }> {
    const prefix = uniquePrefix('run-index');
    const keys = controlKeys(prefix);
    await db.redis.set(`${prefix}:lock`, 'token');
    for (let index = 0; index < count; index++) {
      const rootId = `root-${String(index).padStart(3, '0')}`;
      const at = NOW - (count - 1 - index) * 1_000;
      await indexRoot(db.redis, keys, { rootId, objective: index % 2 === 0 ? `Sort list ${index}` : `Search tree ${index}`, submittedAt: at, ttlMs: DAY });
      if (index >= count - 2) continue;
      const failed = index % 3 === 0;
      const batch = new FencedBatch();
      const answer = { rootId, now: at + 500, ttlMs: DAY, budgetTtlMs: 2 * DAY };
      indexAnswer(batch, keys, 'fleet', {
        ...answer,
        taskType: 'code',
        outcome: { status: failed ? 'failed' : 'success', error_type: failed ? 'timeout' : null, resources_used: { specialist: 'sim' } },
        final: false,
      });
      indexAnswer(batch, keys, 'monitor', {
        ...answer,
        taskType: 'objective',
        outcome: { status: failed ? 'failed' : 'success', error_type: failed ? 'timeout' : null, resources_used: {} },
        final: true,
      });
      await db.redis.hset(keys.budget(rootId), 'tokens_in', 100, 'tokens_out', index, 'cost_micro_usd', index * 1_000);
      await batch.commit(db.redis, `${prefix}:lock`, 'token', rootId);
    }
    return { keys, prefix };
  }

  const running: LiveStatuses = (ids) => Promise.resolve(new Map(ids.map((id) => [id, { status: 'running', queueState: 'active' }])));
  const page = (keys: ControlKeys, filter: RunFilter, after: RunPosition | null = null, extra: Partial<PageRequest> = {}) =>
    readIndexPage(db.redis, keys, { filter, after, limit: 5, now: NOW, ttlMs: DAY, live: running, ...extra });

  it('lists the latest first, with what each run spent, its final status once it has one, and the live one before', async () => {
    const { keys } = await cell(10);
    const first = await page(keys, {});
    expect(first.runs.map((run) => [run.id, run.status, run.queueState])).toEqual([
      ['root-009', 'running', 'active'],
      ['root-008', 'running', 'active'],
      ['root-007', 'success', 'completed'],
      ['root-006', 'failed', 'completed'],
      ['root-005', 'success', 'completed'],
    ]);
    expect(first.runs[2]!.run).toMatchObject({ objective: 'Search tree 7', tokens: 107, costUsd: 0.007, final: { finishedAt: NOW - 2_000 + 500 } });
    expect(first.frontier).toEqual({ at: NOW - 4_000, id: 'root-005' });
    const second = await page(keys, {}, first.frontier);
    expect(second.runs.map((run) => run.id)).toEqual(['root-004', 'root-003', 'root-002', 'root-001', 'root-000']);
    expect((await page(keys, {}, second.frontier)).runs).toEqual([]);
    expect(await readSpending(db.redis, keys, ['root-003', 'no-such-root'])).toEqual([
      { tokens: 103, cost_usd: 0.003 },
      { tokens: 0, cost_usd: 0 },
    ]);
  });

  it('filters on status, text, what the tree saw, time and cost', async () => {
    const { keys } = await cell(10);
    const ids = async (filter: RunFilter): Promise<string[]> => (await page(keys, filter, null, { limit: 20 })).runs.map((run) => run.id);
    expect(await ids({ status: 'failed' })).toEqual(['root-006', 'root-003', 'root-000']);
    expect(await ids({ errorType: 'timeout', text: 'SORT' })).toEqual(['root-006', 'root-000']);
    expect(await ids({ specialist: 'sim', taskType: 'code', status: 'success', minCostUsd: 0.004, maxCostUsd: 0.005 })).toEqual(['root-005', 'root-004']);
    expect(await ids({ since: NOW - 2_000, until: NOW - 1_000 })).toEqual(['root-008', 'root-007']);
    expect(await ids({ status: 'running' })).toEqual(['root-009', 'root-008']);
    expect(await ids({ model: 'none-such' })).toEqual([]);
  });

  it('hands back a short page and where it stopped once it has looked at enough runs', async () => {
    const { keys } = await cell(10);
    const first = await page(keys, { status: 'failed' }, null, { scanLimit: 3, chunk: 3 });
    expect(first).toEqual({ runs: [], frontier: { at: NOW - 2_000, id: 'root-007' }, empty: false });
    const second = await page(keys, { status: 'failed' }, first.frontier, { scanLimit: 3, chunk: 3 });
    // The cursor's own run, read again at the top of its millisecond, is skipped and not counted.
    expect(second.runs.map((run) => run.id)).toEqual(['root-006', 'root-003']);
    expect(second.frontier).toEqual({ at: NOW - 7_000, id: 'root-002' });
    const empty = await page(keys, { status: 'failed' }, { at: NOW - 9_000, id: 'root-000' });
    expect(empty).toEqual({ runs: [], frontier: null, empty: false });
  });

  it('trims roots past retention as it writes, and says when the index holds nothing', async () => {
    const { keys } = await cell(3);
    expect(await page(keys, {}, null, { now: NOW + DAY + 10_000 })).toEqual({ runs: [], frontier: null, empty: true });
    await indexRoot(db.redis, keys, { rootId: 'late', objective: 'late', submittedAt: NOW + DAY + 5_000, ttlMs: DAY });
    expect(await db.redis.zrange(keys.runIndex, 0, -1)).toEqual(['late']);
    expect(await db.redis.pttl(keys.runFacts('client', 'late'))).toBeGreaterThan(DAY - 60_000);
    expect(await db.redis.pttl(keys.runFacts('monitor', 'root-000'))).toBeGreaterThan(DAY - 60_000);
    // The root's answer keeps its budget as long as the index.
    expect(await db.redis.pttl(keys.budget('root-000'))).toBeGreaterThan(2 * DAY - 60_000);
    await unindexRoot(db.redis, keys, 'late');
    expect(await db.redis.zcard(keys.runIndex)).toBe(0);
    expect(await db.redis.exists(keys.runFacts('client', 'late'))).toBe(0);
  });
});
