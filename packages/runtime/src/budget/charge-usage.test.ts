import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { controlKeys } from '../redis/keys.js';
import { FencedBatch } from '../redis/fenced-batch.js';
import { addUsage, microUsd, recordVerdict, refusalWaits, reservationVerdict, withReservation, withSettlement, ZERO_USAGE, type BudgetCount } from '@tierflow/core';
import type { Usage } from '@tierflow/protocol';
import { reserveCall, runBudget, settleCall, writeBudget, type ChargeKeys } from './charge-usage.js';
import { checkBudgetStop, parseBudgetStop } from './budget-stops.js';

const call = (tokens_in: number, tokens_out: number, cost_usd: number) => ({ tokens_in, tokens_out, cost_usd, llm_calls: 1 });

type Db = Parameters<typeof reserveCall>[0];
type Keys = ChargeKeys;

describe('the reserve and settle scripts', () => {
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

  const reserve = (redis: Db, keys: Keys, rootId: string, id: string, estimate: Usage | null) => reserveCall(redis, keys, rootId, id, estimate, 60_000);
  const settle = (redis: Db, keys: Keys, rootId: string, id: string, usage: Usage, estimated = false) => settleCall(redis, keys, rootId, id, usage, estimated, 60_000);

  it('never lets concurrent reservations past max_llm_calls, and queues the run’s stop exactly once', async () => {
    const { redis, keys, rootId, chargeKeys } = await run({ max_llm_calls: 3 });
    const charges = await Promise.all(Array.from({ length: 40 }, (_, i) => reserve(redis, chargeKeys, rootId, `r${i}`, null)));
    expect(charges.filter((charge) => charge.accepted)).toHaveLength(3);
    expect(charges.filter((charge) => charge.stopsRun)).toHaveLength(1);
    expect(charges.filter((charge) => !charge.accepted).every((charge) => charge.limit === 'max_llm_calls')).toBe(true);
    expect(await redis.hget(chargeKeys.budget, 'llm_calls')).toBe('3');
    expect(await redis.zrange(keys.budgetStops, 0, -1)).toEqual([rootId]);
  });

  it('holds each call’s reservation: 32 reservations of 250 tokens at once against max_tokens 600 let 2 through', async () => {
    const { redis, keys, rootId, chargeKeys } = await run({ max_tokens: 600 });
    const charges = await Promise.all(Array.from({ length: 32 }, (_, i) => reserve(redis, chargeKeys, rootId, `r${i}`, call(150, 100, 0))));
    expect(charges.filter((charge) => charge.accepted)).toHaveLength(2);
    expect(charges.filter((charge) => charge.stopsRun)).toHaveLength(1);
    expect(await redis.hmget(chargeKeys.budget, 'llm_calls', 'held_tokens', 'refused_tokens', 'exceeded')).toEqual(['2', '500', '250', 'max_tokens']);
    expect(await redis.zcard(keys.budgetStops)).toBe(1);
    // The Monitor, checking the stop against the run's count and its own idea of the run's budget, bears it out.
    expect(checkBudgetStop(await redis.hgetall(chargeKeys.budget), { max_tokens: 600 })).toEqual({
      holds: true,
      limit: 'max_tokens',
      reason: 'budget exceeded: max_tokens 600 reached (0 used, 500 held by calls in flight, a call asking 250 refused)',
    });
  });

  it('settling releases the reservation and charges what was used, once however often it is sent', async () => {
    const { redis, rootId, chargeKeys } = await run({ max_tokens: 600, max_cost_usd: 0.01 });
    const ids = ['a', 'b'];
    for (const id of ids) expect((await reserve(redis, chargeKeys, rootId, id, call(150, 100, 0.0045))).accepted).toBe(true);
    // The same reservation sent again (a retried command) holds nothing more.
    expect((await reserve(redis, chargeKeys, rootId, 'a', call(150, 100, 0.0045))).accepted).toBe(true);
    expect(await redis.hmget(chargeKeys.budget, 'llm_calls', 'held_tokens', 'held_micro_usd')).toEqual(['2', '500', '9000']);
    // A third call does not fit beside the two held, by one token.
    expect((await reserve(redis, chargeKeys, rootId, 'c', call(50, 51, 0))).accepted).toBe(false);
    const first = await settle(redis, chargeKeys, rootId, 'a', call(50, 60, 0.002));
    expect(first).toMatchObject({ accepted: true, stopsRun: false, spent: { tokens: 110, cost_usd: 0.002 } });
    expect((await settle(redis, chargeKeys, rootId, 'a', call(50, 60, 0.002))).accepted).toBe(false);
    expect(await redis.hmget(chargeKeys.budget, 'tokens_in', 'tokens_out', 'cost_micro_usd', 'held_tokens', 'held_micro_usd', 'hold:a')).toEqual(['50', '60', '2000', '250', '4500', null]);
  });

  it('settling a call never sent (no llm_calls) takes back its count with its hold: an unreachable endpoint never spends max_llm_calls', async () => {
    const { redis, keys, rootId, chargeKeys } = await run({ max_llm_calls: 1 });
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await reserve(redis, chargeKeys, rootId, `try-${attempt}`, call(150, 100, 0.0045))).accepted).toBe(true);
      await settle(redis, chargeKeys, rootId, `try-${attempt}`, ZERO_USAGE);
    }
    expect(await redis.hmget(chargeKeys.budget, 'llm_calls', 'tokens_in', 'tokens_out', 'cost_micro_usd', 'held_tokens', 'exceeded')).toEqual(['0', '0', '0', '0', '0', null]);
    // Settled again, a call never sent takes back nothing more; one that was sent still counts.
    await settle(redis, chargeKeys, rootId, 'try-0', ZERO_USAGE);
    expect((await reserve(redis, chargeKeys, rootId, 'sent', call(150, 100, 0))).accepted).toBe(true);
    await settle(redis, chargeKeys, rootId, 'sent', call(150, 0, 0));
    expect(await redis.hmget(chargeKeys.budget, 'llm_calls', 'tokens_in')).toEqual(['1', '150']);
    expect((await reserve(redis, chargeKeys, rootId, 'over', null)).accepted).toBe(false);
    expect(await redis.zrange(keys.budgetStops, 0, -1)).toEqual([rootId]);
  });

  it('settles a call with no price: its tokens are charged and its hold released, though it held no micro-USD', async () => {
    const { redis, rootId, chargeKeys } = await run({ max_tokens: 1_000 });
    expect((await reserve(redis, chargeKeys, rootId, 'free', call(150, 100, 0))).accepted).toBe(true);
    expect((await settle(redis, chargeKeys, rootId, 'free', call(120, 30, 0))).accepted).toBe(true);
    expect(await redis.hmget(chargeKeys.budget, 'llm_calls', 'tokens_in', 'tokens_out', 'held_tokens', 'hold:free')).toEqual(['1', '120', '30', '0', null]);
  });

  it('stops the run when settled calls pass max_tokens or max_cost_usd, once; later settlements only count', async () => {
    const { redis, keys, rootId, chargeKeys } = await run({ max_cost_usd: 0.01 });
    await reserve(redis, chargeKeys, rootId, 'a', call(1, 1, 0.001));
    const over = await settle(redis, chargeKeys, rootId, 'a', call(1, 1, 0.010001));
    expect(over).toMatchObject({ accepted: true, limit: 'max_cost_usd', stopsRun: true });
    const again = await settle(redis, chargeKeys, rootId, '', call(1, 1, 0.5));
    expect(again.stopsRun).toBe(false);
    expect(again.spent.cost_usd).toBeCloseTo(0.510001, 6);
    expect(await redis.zcard(keys.budgetStops)).toBe(1);
    expect((await reserve(redis, chargeKeys, rootId, 'b', call(1, 1, 0))).accepted).toBe(false);
  });

  it('counts a run without a budget, refusing nothing, the calls whose usage was estimated apart, and gives its hash an expiry', async () => {
    const { redis, keys, rootId, chargeKeys } = await run(null);
    for (let index = 0; index < 5; index++) {
      expect((await reserve(redis, chargeKeys, rootId, `r${index}`, call(100, 100, 0.01))).accepted).toBe(true);
      await settle(redis, chargeKeys, rootId, `r${index}`, call(10, 5, 0.001), index === 0);
    }
    expect(await redis.hgetall(chargeKeys.budget)).toEqual({
      llm_calls: '5',
      tokens_in: '50',
      tokens_out: '25',
      cost_micro_usd: '5000',
      held_tokens: '0',
      held_micro_usd: '0',
      held_calls: '0',
      estimated_calls: '1',
    });
    expect(await redis.pttl(chargeKeys.budget)).toBeGreaterThan(0);
    expect(await redis.zcard(keys.budgetStops)).toBe(0);
  });

  type Step = ['reserve' | 'wait' | 'settle', string, Usage];

  /** Replays `steps` against the scripts and core's pure count side by side: each decision and each counter must agree. */
  async function replay(budget: Parameters<typeof writeBudget>[2], steps: readonly Step[]) {
    const { redis, rootId, chargeKeys } = await run(budget);
    let count: BudgetCount = { spent: ZERO_USAGE, held: ZERO_USAGE, heldCalls: 0 };
    const reserved = new Map<string, Usage>();
    // Once a call is refused the run is stopped: every later one is refused too.
    let stopped = false;
    for (const [kind, id, usage] of steps) {
      if (kind === 'settle') {
        count = withSettlement(count, reserved.get(id)!, usage);
        const charge = await settle(redis, chargeKeys, rootId, id, usage);
        expect(charge.limit !== null, `settle ${id}`).toBe(!recordVerdict(budget, count.spent).ok);
      } else {
        const verdict = reservationVerdict(budget, addUsage(count.spent, count.held), usage);
        const waits: boolean = kind === 'wait' && !stopped && !verdict.ok && refusalWaits(budget, count, usage);
        const charge = await reserveCall(redis, chargeKeys, rootId, id, usage, 60_000, kind === 'wait');
        expect([charge.accepted, charge.waits], `${kind} ${id}`).toEqual([verdict.ok && !stopped, waits]);
        stopped ||= !verdict.ok && !waits;
        if (charge.accepted) {
          count = withReservation(count, usage);
          reserved.set(id, usage);
        }
      }
      const held = await redis.hmget(chargeKeys.budget, 'llm_calls', 'tokens_in', 'tokens_out', 'cost_micro_usd', 'held_tokens', 'held_micro_usd', 'held_calls');
      expect(held.map(Number), `after ${kind} ${id}`).toEqual([
        count.spent.llm_calls,
        count.spent.tokens_in,
        count.spent.tokens_out,
        microUsd(count.spent.cost_usd),
        count.held.tokens_in + count.held.tokens_out,
        microUsd(count.held.cost_usd),
        count.heldCalls,
      ]);
    }
    return { stopped };
  }

  it('decides as core’s pure reservation and settlement do, call after call', async () => {
    // Reserve a, b, c; settle b under and a over its estimate; reserve d, then e is refused and with it everything after; settle the rest.
    const steps: Step[] = [
      ['reserve', 'a', call(200, 100, 0.004)],
      ['reserve', 'b', call(300, 100, 0.005)],
      ['reserve', 'c', call(150, 100, 0.003)],
      ['settle', 'b', call(120, 30, 0.0021)],
      ['settle', 'a', call(260, 100, 0.0046)],
      ['reserve', 'd', call(100, 100, 0.004)],
      ['reserve', 'e', call(100, 100, 0.003)],
      ['reserve', 'f', call(50, 20, 0.001)],
      ['settle', 'c', call(150, 0, 0.0015)],
      ['settle', 'd', call(0, 0, 0)],
      ['reserve', 'g', call(100, 100, 0.002)],
    ];
    expect(await replay({ max_tokens: 1_000, max_cost_usd: 0.02, max_llm_calls: 8 }, steps)).toEqual({ stopped: true });
  });

  it('lets a caller that may wait wait for calls in flight, which a call never sent gives its count back to, and stops the run only on what was spent', async () => {
    const unsent = { ...ZERO_USAGE };
    const steps: Step[] = [
      ['reserve', 'a', call(100, 100, 0)],
      ['reserve', 'b', call(100, 100, 0)],
      // Both calls are in flight: c waits (and stops nothing), unlike a caller that may not wait.
      ['wait', 'c', call(100, 100, 0)],
      ['settle', 'a', unsent],
      ['wait', 'c', call(100, 100, 0)],
      ['settle', 'b', call(50, 20, 0)],
      // Two calls counted, one of them in flight: d waits for it, and is refused once it was made.
      ['wait', 'd', call(100, 100, 0)],
      ['settle', 'c', call(50, 50, 0)],
      ['wait', 'd', call(100, 100, 0)],
    ];
    expect(await replay({ max_llm_calls: 2, max_tokens: 1_000 }, steps)).toEqual({ stopped: true });
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
