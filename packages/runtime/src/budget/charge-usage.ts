import { microUsd } from '@tierflow/core';
import type { Budget, Usage } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import type { FencedBatch } from '../redis/fenced-batch.js';
import { runScript, type RedisScript } from '../redis/scripts.js';

/**
 * Counts a run's model calls, tokens and cost against its budget, for every process at once.
 *   KEYS[1]  the root's budget hash: limits (max_llm_calls, max_tokens, max_cost_micro_usd,
 *            written by the Monitor), counters (llm_calls, tokens_in, tokens_out, cost_micro_usd),
 *            and `exceeded` (the limit that stopped the run, once one has)
 *   KEYS[2]  the budget-stops sorted set the Monitor sweeps
 *   ARGV[1]  `reserve` (before a call: refuse it once any limit is reached, else count it) or
 *            `record` (after a call: add its tokens and cost)
 *   ARGV[2]  the root id, the member queued on KEYS[2] when this call stops the run
 *   ARGV[3]  tokens in, ARGV[4] tokens out, ARGV[5] cost in millionths of a dollar (record; 0 for reserve)
 *   ARGV[6]  the hash's TTL in ms, set when it has none (a run without a budget is counted too)
 * Returns { accepted (1|0), the limit that stopped the run or '', 1 when this call stopped it,
 * llm_calls, tokens_in + tokens_out, cost_micro_usd }. Only the call that sets `exceeded` queues
 * the stop, so however many calls hit the limit at once, the run is cancelled once.
 */
const CHARGE_USAGE: RedisScript = {
  lua: `
local h = KEYS[1]
-- One read of everything, so a charge costs the same however many limits there are.
local v = redis.call('HMGET', h, 'llm_calls', 'tokens_in', 'tokens_out', 'cost_micro_usd', 'max_llm_calls', 'max_tokens', 'max_cost_micro_usd', 'exceeded')
local calls, tin, tout, cost = tonumber(v[1]) or 0, tonumber(v[2]) or 0, tonumber(v[3]) or 0, tonumber(v[4]) or 0
local maxCalls, maxTokens, maxCost, exceeded = tonumber(v[5] or ''), tonumber(v[6] or ''), tonumber(v[7] or ''), v[8]
local function over(strict)
  local function past(used, max) return max ~= nil and ((strict and used > max) or (not strict and used >= max)) end
  if past(calls, maxCalls) then return 'max_llm_calls' end
  if past(tin + tout, maxTokens) then return 'max_tokens' end
  if past(cost, maxCost) then return 'max_cost_usd' end
  return false
end
local function stop(limit)
  if redis.call('HSETNX', h, 'exceeded', limit) == 0 then return 0 end
  local time = redis.call('TIME')
  redis.call('ZADD', KEYS[2], tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000), ARGV[2])
  return 1
end
local accepted, limit, first = 1, '', 0
if ARGV[1] == 'reserve' then
  local reached = exceeded or over(false)
  if reached then
    accepted, limit = 0, reached
    if not exceeded then first = stop(reached) end
  else
    calls = redis.call('HINCRBY', h, 'llm_calls', 1)
    -- The first charge of a run without a budget creates the hash: it must not outlive the run.
    if calls == 1 and redis.call('PTTL', h) == -1 then redis.call('PEXPIRE', h, ARGV[6]) end
  end
else
  tin = redis.call('HINCRBY', h, 'tokens_in', ARGV[3])
  tout = redis.call('HINCRBY', h, 'tokens_out', ARGV[4])
  cost = redis.call('HINCRBY', h, 'cost_micro_usd', ARGV[5])
  if not exceeded then
    local passed = over(true)
    if passed then limit, first = passed, stop(passed) end
  end
end
return { accepted, limit, first, calls, tin + tout, cost }`,
};

/** What a charge found: whether the call may go on, and whether the run is (now) over budget. */
export interface Charge {
  /** For a reservation: the call may start (and was counted). Always true for a record. */
  readonly accepted: boolean;
  /** The limit that stopped the run, or null while it is within its budget. */
  readonly limit: string | null;
  /** This call was the one that stopped the run: its caller sees that the run is cancelled. */
  readonly stopsRun: boolean;
  /** The run's totals after this call. */
  readonly spent: { readonly llm_calls: number; readonly tokens: number; readonly cost_usd: number };
}

export interface ChargeKeys {
  readonly budget: string;
  readonly stops: string;
}

/** Runs the charge script once: a reservation (`usage` null) or the record of a call's tokens and cost. */
export async function chargeUsage(redis: RedisClient, keys: ChargeKeys, rootId: string, usage: Usage | null, ttlMs: number): Promise<Charge> {
  const args = usage === null ? ['reserve', rootId, 0, 0, 0] : ['record', rootId, usage.tokens_in, usage.tokens_out, microUsd(usage.cost_usd)];
  const reply = await runScript(redis, CHARGE_USAGE, [keys.budget, keys.stops], [...args, Math.max(1, Math.ceil(ttlMs))]);
  return readCharge(reply);
}

/** The script's reply, read without trusting its shape. */
function readCharge(reply: unknown): Charge {
  const [accepted, limit, first, calls, tokens, micro] = Array.isArray(reply) ? (reply as unknown[]) : [];
  const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : Number(value) || 0);
  return {
    accepted: number(accepted) === 1,
    limit: typeof limit === 'string' && limit !== '' ? limit : null,
    stopsRun: number(first) === 1,
    spent: { llm_calls: number(calls), tokens: number(tokens), cost_usd: number(micro) / 1e6 },
  };
}

/**
 * Queues the writing of a run's limits on the root's first commit. Each limit is set only if it
 * is not there yet, so a root delivered again writes nothing new; the counters are left alone.
 */
export function writeBudget(batch: FencedBatch, key: string, budget: Budget, ttlMs: number): void {
  if (budget.max_llm_calls !== undefined) batch.hsetnx(key, 'max_llm_calls', budget.max_llm_calls);
  if (budget.max_tokens !== undefined) batch.hsetnx(key, 'max_tokens', budget.max_tokens);
  if (budget.max_cost_usd !== undefined) batch.hsetnx(key, 'max_cost_micro_usd', microUsd(budget.max_cost_usd));
  batch.pexpire(key, ttlMs);
}

/** The budget a run gets: the deployment's default, each limit the objective sets taking its place. */
export function runBudget(defaults: Budget | null, objective: Budget | undefined): Budget | null {
  if (!defaults && !objective) return null;
  return { ...defaults, ...objective };
}
