import { microUsd } from '@tierflow/core';
import type { Budget, Usage } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import type { FencedBatch } from '../redis/fenced-batch.js';
import { runScript, type RedisScript } from '../redis/scripts.js';

/*
 * A run's budget hash holds its limits (max_llm_calls, max_tokens, max_cost_micro_usd, written by
 * the Monitor), what settled calls used (llm_calls counts every call let through; tokens_in,
 * tokens_out, cost_micro_usd; a call never sent is taken back), what calls in flight hold (held_calls, held_tokens, held_micro_usd, and one
 * `hold:<id>` field per call, "<tokens> <micro-usd>"), estimated_calls (answers that came without
 * a usage), and `exceeded`: the limit that stopped the run, once one has. Both scripts share the
 * test of a limit: the one that sets `exceeded` queues the run's stop, so however many calls hit a
 * limit at once, the run is cancelled once.
 */
const SHARED = `
local h = KEYS[1]
local v = redis.call('HMGET', h, 'llm_calls', 'tokens_in', 'tokens_out', 'cost_micro_usd', 'held_tokens', 'held_micro_usd', 'max_llm_calls', 'max_tokens', 'max_cost_micro_usd', 'exceeded', 'held_calls')
local calls, tin, tout, cost = tonumber(v[1]) or 0, tonumber(v[2]) or 0, tonumber(v[3]) or 0, tonumber(v[4]) or 0
local heldT, heldC, heldN = tonumber(v[5]) or 0, tonumber(v[6]) or 0, tonumber(v[11]) or 0
local maxCalls, maxTokens, maxCost, exceeded = tonumber(v[7] or ''), tonumber(v[8] or ''), tonumber(v[9] or ''), v[10]
local function stop(limit)
  if redis.call('HSETNX', h, 'exceeded', limit) == 0 then return 0 end
  local time = redis.call('TIME')
  redis.call('ZADD', KEYS[2], tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000), ARGV[1])
  return 1
end
-- The first charge of a run without a budget creates the hash: it must not outlive the run.
local function expire(ms) if redis.call('PTTL', h) == -1 then redis.call('PEXPIRE', h, ms) end end
`;

/**
 * Reserves one model call before it is sent (core's `reservationVerdict`, atomically).
 *   KEYS[1]  the root's budget hash (fields above)
 *   KEYS[2]  the budget-stops sorted set the Monitor sweeps
 *   ARGV[1]  the root id, queued on KEYS[2] when this refusal stops the run
 *   ARGV[2]  the reservation's id ('' for a call counted with nothing held)
 *   ARGV[3]  tokens reserved (prompt estimate and output limit), ARGV[4] their cost in micro-USD
 *   ARGV[5]  the hash's TTL in ms, set when it has none
 *   ARGV[6]  '1' when the caller may wait: a refusal that only calls in flight make (core's
 *            `refusalWaits`: on what settled calls used, this one would fit) then stops nothing
 *            and answers `waits`, for the caller to try again once they have settled
 * Refused once a limit is reached, or when spent + held + this reservation would pass one: then
 * the run is stopped, with the refused reservation kept in refused_tokens and refused_micro_usd,
 * and what calls in flight held then in refused_held_tokens and refused_held_micro_usd (the
 * Monitor checks the stop once they may have settled). Else the call is counted and its
 * reservation held. The same id reserved again (a command sent twice) changes nothing. Returns
 * { accepted (1|0), the limit that stopped the run or '', 1 when this call stopped it, llm_calls,
 * tokens spent + held, micro-USD spent + held, 1 when the refusal waits }.
 */
const RESERVE_CALL: RedisScript = {
  lua: `${SHARED}
local askT, askC = tonumber(ARGV[3]) or 0, tonumber(ARGV[4]) or 0
local tokens, micro = tin + tout + heldT, cost + heldC
if ARGV[2] ~= '' and redis.call('HEXISTS', h, 'hold:' .. ARGV[2]) == 1 then return { 1, '', 0, calls, tokens, micro, 0 } end
local function past(used, asked, max) return max ~= nil and (used >= max or used + asked > max) end
local function reachedOn(n, t, c)
  if maxCalls ~= nil and n >= maxCalls then return 'max_llm_calls' end
  if past(t, askT, maxTokens) then return 'max_tokens' end
  if past(c, askC, maxCost) then return 'max_cost_usd' end
  return false
end
local reached = exceeded or reachedOn(calls, tokens, micro)
if reached then
  if not exceeded and ARGV[6] == '1' and heldN > 0 and not reachedOn(math.max(0, calls - heldN), tin + tout, cost) then
    return { 0, '', 0, calls, tokens, micro, 1 }
  end
  local first = 0
  if not exceeded then
    first = stop(reached)
    if first == 1 then redis.call('HSET', h, 'refused_tokens', askT, 'refused_micro_usd', askC, 'refused_held_tokens', heldT, 'refused_held_micro_usd', heldC) end
  end
  return { 0, reached, first, calls, tokens, micro, 0 }
end
calls = redis.call('HINCRBY', h, 'llm_calls', 1)
if askT > 0 then redis.call('HINCRBY', h, 'held_tokens', askT) end
if askC > 0 then redis.call('HINCRBY', h, 'held_micro_usd', askC) end
if ARGV[2] ~= '' then
  redis.call('HSET', h, 'hold:' .. ARGV[2], askT .. ' ' .. askC)
  redis.call('HINCRBY', h, 'held_calls', 1)
end
expire(ARGV[5])
return { 1, '', 0, calls, tokens + askT, micro + askC, 0 }`,
};

/**
 * Settles a model call: releases its reservation and adds what it is charged.
 *   KEYS[1]  the root's budget hash (fields above)
 *   KEYS[2]  the budget-stops sorted set the Monitor sweeps
 *   ARGV[1]  the root id, queued on KEYS[2] when this call's usage stops the run
 *   ARGV[2]  the reservation's id ('' : nothing held, the usage is only added)
 *   ARGV[3]  tokens in, ARGV[4] tokens out, ARGV[5] cost in micro-USD
 *   ARGV[6]  the hash's TTL in ms, set when it has none
 *   ARGV[7]  '1' when the tokens are an estimate (the endpoint reported none): counted in estimated_calls
 *   ARGV[8]  '1' when the call was never sent (no connection to the endpoint): its reservation no
 *            longer counts as a call either, so an unreachable endpoint never spends max_llm_calls
 * A reservation settled already (a command sent twice) changes nothing (accepted 0). The run is
 * stopped when what settled calls used passes a limit. Returns what the reserve script returns,
 * with tokens and micro-USD spent only.
 */
const SETTLE_CALL: RedisScript = {
  lua: `${SHARED}
if ARGV[2] ~= '' then
  local hold = redis.call('HGET', h, 'hold:' .. ARGV[2])
  if not hold then return { 0, '', 0, calls, tin + tout, cost } end
  redis.call('HDEL', h, 'hold:' .. ARGV[2])
  if heldN > 0 then redis.call('HINCRBY', h, 'held_calls', -1) end
  local heldTokens, heldMicro = string.match(hold, '^(%d+) (%d+)$')
  -- Lua writes minus zero as '-0', which HINCRBY refuses: a hold of nothing (no price) is let go of without a write.
  local function release(field, held, amount) local d = math.min(held, tonumber(amount) or 0) if d > 0 then redis.call('HINCRBY', h, field, -d) end end
  release('held_tokens', heldT, heldTokens)
  release('held_micro_usd', heldC, heldMicro)
  if ARGV[8] == '1' and calls > 0 then calls = redis.call('HINCRBY', h, 'llm_calls', -1) end
end
tin = redis.call('HINCRBY', h, 'tokens_in', ARGV[3])
tout = redis.call('HINCRBY', h, 'tokens_out', ARGV[4])
cost = redis.call('HINCRBY', h, 'cost_micro_usd', ARGV[5])
if ARGV[7] == '1' then redis.call('HINCRBY', h, 'estimated_calls', 1) end
expire(ARGV[6])
local limit, first = '', 0
if not exceeded then
  local passed = false
  if maxTokens ~= nil and tin + tout > maxTokens then passed = 'max_tokens'
  elseif maxCost ~= nil and cost > maxCost then passed = 'max_cost_usd' end
  if passed then limit, first = passed, stop(passed) end
end
return { 1, limit, first, calls, tin + tout, cost }`,
};

/**
 * Counts one tool call of an LLM specialist against the run's `max_tool_calls`.
 *   KEYS[1]  the root's budget hash (fields above; this script adds tool_calls, reads max_tool_calls)
 *   KEYS[2]  the budget-stops sorted set the Monitor sweeps
 *   ARGV[1]  the root id, queued on KEYS[2] when this refusal stops the run
 *   ARGV[2]  the hash's TTL in ms, set when it has none
 * Refused once the run is over any limit, or has made max_tool_calls calls (then the run is
 * stopped, `max_tool_calls` its reason); else counted. Returns { accepted (1|0), the limit that
 * stopped the run or '', 1 when this call stopped it, tool_calls }.
 */
const COUNT_TOOL_CALL: RedisScript = {
  lua: `
local h = KEYS[1]
local v = redis.call('HMGET', h, 'tool_calls', 'max_tool_calls', 'exceeded')
local calls, max, exceeded = tonumber(v[1]) or 0, tonumber(v[2] or ''), v[3]
if exceeded then return { 0, exceeded, 0, calls } end
if max ~= nil and calls >= max then
  if redis.call('HSETNX', h, 'exceeded', 'max_tool_calls') == 0 then return { 0, redis.call('HGET', h, 'exceeded'), 0, calls } end
  local time = redis.call('TIME')
  redis.call('ZADD', KEYS[2], tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000), ARGV[1])
  return { 0, 'max_tool_calls', 1, calls }
end
calls = redis.call('HINCRBY', h, 'tool_calls', 1)
if redis.call('PTTL', h) == -1 then redis.call('PEXPIRE', h, ARGV[2]) end
return { 1, '', 0, calls }`,
};

/** What counting a tool call found: whether it may be made, and whether the run is (now) over budget. */
export interface ToolCharge {
  readonly accepted: boolean;
  readonly limit: string | null;
  readonly stopsRun: boolean;
  readonly toolCalls: number;
}

/** Runs the tool-call script once. */
export async function countToolCall(redis: RedisClient, keys: ChargeKeys, rootId: string, ttlMs: number): Promise<ToolCharge> {
  const reply = await runScript(redis, COUNT_TOOL_CALL, [keys.budget, keys.stops], [rootId, ttl(ttlMs)]);
  const [accepted, limit, first, calls] = Array.isArray(reply) ? (reply as unknown[]) : [];
  return { accepted: Number(accepted) === 1, limit: typeof limit === 'string' && limit !== '' ? limit : null, stopsRun: Number(first) === 1, toolCalls: Number(calls) || 0 };
}

/** What a reservation or a settlement found: whether it took effect, and whether the run is (now) over budget. */
export interface Charge {
  /** Reserve: the call may be sent (it is counted and its reservation held). Settle: the reservation was released now, not before. */
  readonly accepted: boolean;
  /** The limit that stopped the run, or null while it is within its budget. */
  readonly limit: string | null;
  /** This call was the one that stopped the run: its caller sees that the run is cancelled. */
  readonly stopsRun: boolean;
  /** Reserve: refused only by what calls in flight hold (the caller asked to wait): try again once they have settled. */
  readonly waits: boolean;
  /** The run's totals after this call: on a reservation, what calls in flight hold is included. */
  readonly spent: { readonly llm_calls: number; readonly tokens: number; readonly cost_usd: number };
}

export interface ChargeKeys {
  readonly budget: string;
  readonly stops: string;
}

/**
 * Runs the reserve script once: `estimate` is the call's reservation (null: count the call, hold
 * nothing); with `mayWait`, a refusal that only calls in flight make answers `waits` and stops nothing.
 */
export async function reserveCall(redis: RedisClient, keys: ChargeKeys, rootId: string, id: string, estimate: Usage | null, ttlMs: number, mayWait = false): Promise<Charge> {
  const tokens = estimate ? wholeTokens(estimate.tokens_in) + wholeTokens(estimate.tokens_out) : 0;
  const micro = estimate ? microUsd(Math.max(0, estimate.cost_usd)) : 0;
  const args = [rootId, estimate ? id : '', tokens, micro, ttl(ttlMs), mayWait ? '1' : '0'];
  return readCharge(await runScript(redis, RESERVE_CALL, [keys.budget, keys.stops], args));
}

/**
 * Runs the settle script once: the reservation `id` released ('' : none), `usage` added; `estimated`
 * when the endpoint reported none. A `usage` of no `llm_calls` settles a call never sent: the
 * reservation's count is taken back with its hold.
 */
export async function settleCall(redis: RedisClient, keys: ChargeKeys, rootId: string, id: string, usage: Usage, estimated: boolean, ttlMs: number): Promise<Charge> {
  const unsent = usage.llm_calls === 0 ? '1' : '0';
  const args = [rootId, id, wholeTokens(usage.tokens_in), wholeTokens(usage.tokens_out), microUsd(Math.max(0, usage.cost_usd)), ttl(ttlMs), estimated ? '1' : '0', unsent];
  return readCharge(await runScript(redis, SETTLE_CALL, [keys.budget, keys.stops], args));
}

function wholeTokens(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function ttl(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

/** The script's reply, read without trusting its shape. */
function readCharge(reply: unknown): Charge {
  const [accepted, limit, first, calls, tokens, micro, waits] = Array.isArray(reply) ? (reply as unknown[]) : [];
  const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : Number(value) || 0);
  return {
    accepted: number(accepted) === 1,
    limit: typeof limit === 'string' && limit !== '' ? limit : null,
    stopsRun: number(first) === 1,
    waits: number(waits) === 1,
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
  if (budget.max_tool_calls !== undefined) batch.hsetnx(key, 'max_tool_calls', budget.max_tool_calls);
  batch.pexpire(key, ttlMs);
}

/** The budget a run gets: the deployment's default, each limit the objective sets taking its place. */
export function runBudget(defaults: Budget | null, objective: Budget | undefined): Budget | null {
  if (!defaults && !objective) return null;
  return { ...defaults, ...objective };
}
