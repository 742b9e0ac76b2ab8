import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { controlKeys } from '../cancellation/control-keys.js';
import { FencedBatch } from '../redis/fenced-batch.js';
import { chargeUsage, runBudget, writeBudget } from './charge-usage.js';
import { checkBudgetStop, parseBudgetStop } from './budget-stops.js';

const call = (tokens_in: number, tokens_out: number, cost_usd: number) => ({ tokens_in, tokens_out, cost_usd, llm_calls: 1 });

describe('the charge-usage script', () => {
  const db = usePrivateRedis();

  async function run(budget: Parameters<typeof writeBudget>[2] | null) {
    const { redis } = db;
    const prefix = uniquePrefix('budget');
    const keys = controlKeys(prefix);
    const rootId = `root-${prefix.length}`;
    const chargeKeys = { budget: keys.budget(rootId), stops: keys.budgetStops };
    if (budget) {
      // The lock the batch is fenced by, as a pass would hold it.
      await redis.set(`${prefix}:lock`, 'token');
      const batch = new FencedBatch();
      writeBudget(batch, chargeKeys.budget, budget, 60_000);
      await batch.commit(redis, `${prefix}:lock`, 'token', rootId);
    }
    return { redis, keys, rootId, chargeKeys };
  }

  it('never lets concurrent reservations past max_llm_calls, and queues the run’s stop exactly once', async () => {
    const { redis, keys, rootId, chargeKeys } = await run({ max_llm_calls: 3 });
    const charges = await Promise.all(Array.from({ length: 40 }, () => chargeUsage(redis, chargeKeys, rootId, null, 60_000)));
    expect(charges.filter((charge) => charge.accepted)).toHaveLength(3);
    expect(charges.filter((charge) => charge.stopsRun)).toHaveLength(1);
    expect(charges.filter((charge) => !charge.accepted).every((charge) => charge.limit === 'max_llm_calls')).toBe(true);
    expect(await redis.hget(chargeKeys.budget, 'llm_calls')).toBe('3');
    expect(await redis.zrange(keys.budgetStops, 0, -1)).toEqual([rootId]);
  });

  it('stops the run when a recorded call goes past max_tokens or max_cost_usd, and refuses the next call', async () => {
    const { redis, keys, rootId, chargeKeys } = await run({ max_tokens: 100, max_cost_usd: 1 });
    expect((await chargeUsage(redis, chargeKeys, rootId, null, 60_000)).accepted).toBe(true);
    const within = await chargeUsage(redis, chargeKeys, rootId, call(60, 40, 0.5), 60_000);
    expect(within).toMatchObject({ accepted: true, limit: null, stopsRun: false, spent: { llm_calls: 1, tokens: 100, cost_usd: 0.5 } });
    // Exactly at max_tokens: the next reservation is refused, and that refusal stops the run.
    const refused = await chargeUsage(redis, chargeKeys, rootId, null, 60_000);
    expect(refused).toMatchObject({ accepted: false, limit: 'max_tokens', stopsRun: true });
    expect(await redis.zcard(keys.budgetStops)).toBe(1);
    // The Monitor, checking the stop against the run's count and its own idea of the run's budget, bears it out.
    expect(checkBudgetStop(await redis.hgetall(chargeKeys.budget), { max_tokens: 100, max_cost_usd: 1 })).toEqual({
      holds: true,
      limit: 'max_tokens',
      reason: 'budget exceeded: max_tokens 100 reached (100 used)',
    });
  });

  it('a record that passes a limit stops the run once; later ones only count', async () => {
    const { redis, rootId, chargeKeys } = await run({ max_cost_usd: 0.01 });
    const over = await chargeUsage(redis, chargeKeys, rootId, call(1, 1, 0.010001), 60_000);
    expect(over).toMatchObject({ accepted: true, limit: 'max_cost_usd', stopsRun: true });
    const again = await chargeUsage(redis, chargeKeys, rootId, call(1, 1, 0.5), 60_000);
    expect(again.stopsRun).toBe(false);
    expect(again.spent.cost_usd).toBeCloseTo(0.510001, 6);
  });

  it('counts a run without a budget, refusing nothing, and gives its hash an expiry', async () => {
    const { redis, keys, rootId, chargeKeys } = await run(null);
    for (let index = 0; index < 5; index++) {
      expect((await chargeUsage(redis, chargeKeys, rootId, null, 60_000)).accepted).toBe(true);
      await chargeUsage(redis, chargeKeys, rootId, call(10, 5, 0.001), 60_000);
    }
    expect(await redis.hgetall(chargeKeys.budget)).toEqual({ llm_calls: '5', tokens_in: '50', tokens_out: '25', cost_micro_usd: '5000' });
    expect(await redis.pttl(chargeKeys.budget)).toBeGreaterThan(0);
    expect(await redis.zcard(keys.budgetStops)).toBe(0);
  });

  it('writes limits once: a root delivered again changes nothing', async () => {
    const { redis, chargeKeys, rootId } = await run({ max_llm_calls: 2 });
    await redis.set('lock-2', 'token');
    const batch = new FencedBatch();
    writeBudget(batch, chargeKeys.budget, { max_llm_calls: 9, max_tokens: 5 }, 60_000);
    await batch.commit(redis, 'lock-2', 'token', rootId);
    expect(await redis.hmget(chargeKeys.budget, 'max_llm_calls', 'max_tokens')).toEqual(['2', '5']);
  });
});

describe('budgets, pure parts', () => {
  it('merges the default budget with the objective’s, limit by limit', () => {
    expect(runBudget(null, undefined)).toBeNull();
    expect(runBudget({ max_tokens: 1_000, max_llm_calls: 10 }, { max_llm_calls: 2 })).toEqual({ max_tokens: 1_000, max_llm_calls: 2 });
    expect(runBudget(null, { max_cost_usd: 1 })).toEqual({ max_cost_usd: 1 });
  });

  it('reads the budget-stops set and the budget hash without trusting them', () => {
    expect(parseBudgetStop('root-1')).toBe('root-1');
    expect(parseBudgetStop('bad id')).toBeNull();
  });
});
