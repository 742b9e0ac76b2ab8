import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { controlKeys } from '../redis/keys.js';
import { BudgetExceededError, UsageMeters } from './usage-meter.js';

const call = { tokens_in: 10, tokens_out: 10, cost_usd: 0, llm_calls: 1 };
const unsent = { tokens_in: 0, tokens_out: 0, cost_usd: 0, llm_calls: 0 };
const log = { info: () => undefined, warn: () => undefined };

describe('a run’s usage meter', () => {
  const db = usePrivateRedis();

  async function meters(heldWaitMs: number) {
    const keys = controlKeys(uniquePrefix('meter'));
    const rootId = 'root-1';
    await db.redis.hset(keys.budget(rootId), 'max_llm_calls', 1);
    return { meters: new UsageMeters({ redis: db.redis, keys, ttlMs: 60_000, log, heldWaitMs }), rootId, budget: keys.budget(rootId) };
  }

  it('waits for a call in flight that may never be sent, and takes its place when it gives its count back', async () => {
    const { meters: all, rootId, budget } = await meters(30_000);
    const meter = all.for(rootId);
    const first = await meter.reserve(call);
    const second = meter.reserve(call);
    await first.settle(unsent);
    await (await second).settle(call);
    expect(await db.redis.hmget(budget, 'llm_calls', 'held_calls', 'exceeded')).toEqual(['1', '0', null]);
  });

  it('is refused, and stops the run, once a call in flight was made', async () => {
    const { meters: all, rootId, budget } = await meters(30_000);
    const meter = all.for(rootId);
    const first = await meter.reserve(call);
    const second = meter.reserve(call);
    await first.settle(call);
    await expect(second).rejects.toBeInstanceOf(BudgetExceededError);
    expect(await db.redis.hmget(budget, 'llm_calls', 'exceeded')).toEqual(['1', 'max_llm_calls']);
  });

  it('waits no longer than it is allowed for a hold that never settles (its caller died)', async () => {
    const { meters: all, rootId, budget } = await meters(300);
    const meter = all.for(rootId);
    await meter.reserve(call);
    await expect(meter.reserve(call)).rejects.toBeInstanceOf(BudgetExceededError);
    expect(await db.redis.hget(budget, 'exceeded')).toBe('max_llm_calls');
  });

  it('stops waiting when its pass is stopped, and stops nothing else', async () => {
    const { meters: all, rootId, budget } = await meters(30_000);
    const controller = new AbortController();
    const meter = all.for(rootId, controller.signal);
    await meter.reserve(call);
    const waiting = meter.reserve(call);
    controller.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    expect(await db.redis.hmget(budget, 'llm_calls', 'exceeded')).toEqual(['1', null]);
  });
});
