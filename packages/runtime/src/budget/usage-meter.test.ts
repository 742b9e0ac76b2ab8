import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { controlKeys } from '../redis/keys.js';
import { budgetLeft } from '@tierflow/core';
import { budgetStandingOf } from './budget-standing.js';
import { hopUsage } from './hop-usage.js';
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

  it('counts tool calls against max_tool_calls, refusing the one past it and queueing the run’s stop once', async () => {
    const keys = controlKeys(uniquePrefix('meter'));
    await db.redis.hset(keys.budget('root-t'), 'max_tool_calls', 2);
    const meter = new UsageMeters({ redis: db.redis, keys, ttlMs: 60_000, log }).for('root-t');
    await meter.toolCall!();
    await meter.toolCall!();
    await expect(meter.toolCall!()).rejects.toThrow(/max_tool_calls\): no more tool calls/);
    await expect(meter.toolCall!()).rejects.toBeInstanceOf(BudgetExceededError);
    expect(await db.redis.hmget(keys.budget('root-t'), 'tool_calls', 'exceeded')).toEqual(['2', 'max_tool_calls']);
    expect(await db.redis.zrange(keys.budgetStops, 0, -1)).toEqual(['root-t']);
    expect(await db.redis.pttl(keys.budget('root-t'))).toBeGreaterThan(0); // a hash nothing set an expiry on must not outlive the run
  });

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

  it('tells the run’s standing: the limits in its hash, and what was spent and is held (a policy weighing another round reads it)', async () => {
    const keys = controlKeys(uniquePrefix('meter'));
    const rootId = 'root-2';
    await db.redis.hset(keys.budget(rootId), 'max_tokens', 1_000, 'max_cost_micro_usd', 50_000);
    const meter = hopUsage(new UsageMeters({ redis: db.redis, keys, ttlMs: 60_000, log }).for(rootId)).meter;
    await (await meter.reserve({ tokens_in: 100, tokens_out: 100, cost_usd: 0.01, llm_calls: 1 })).settle({ tokens_in: 50, tokens_out: 30, cost_usd: 0.004, llm_calls: 1 });
    await meter.reserve({ tokens_in: 200, tokens_out: 100, cost_usd: 0.02, llm_calls: 1 });
    const standing = await meter.standing!();
    expect(standing).toEqual({ limits: { max_tokens: 1_000, max_cost_usd: 0.05 }, committed: { tokens_in: 350, tokens_out: 30, cost_usd: 0.024, llm_calls: 2 } });
    expect(budgetLeft(standing)).toEqual({ llm_calls: null, tokens: 620, cost_usd: 0.026 });
  });
});

describe('budgetStandingOf', () => {
  it('reads leniently: a limit that is not a whole number is no limit, a count that is not one counts 0', () => {
    expect(budgetStandingOf({ max_llm_calls: 'x', max_tokens: '-3', max_cost_micro_usd: '1000', llm_calls: 'many', tokens_in: '5' })).toEqual({
      limits: { max_cost_usd: 0.001 },
      committed: { tokens_in: 5, tokens_out: 0, cost_usd: 0, llm_calls: 0 },
    });
    expect(budgetStandingOf({})).toEqual({ limits: {}, committed: { tokens_in: 0, tokens_out: 0, cost_usd: 0, llm_calls: 0 } });
  });
});
