import { createHash } from 'node:crypto';
import { DECAYED_SUMS_FIELD_CAP } from '@tierflow/core';
import { TierflowError } from '@tierflow/protocol';
import type { RedisClient } from './scan-keys.js';

/** How a decayed add is made: the half-life its sums decay with, the writer's clock, and the value's expiry. */
export interface AddDecayedOptions {
  /** The half-life, in ms, that the value decays with from now on. */
  readonly halfLifeMs: number;
  /** The writer's clock, ms since the epoch: the stored sums decay from their `updated_at` to it. */
  readonly now: number;
  /**
   * Expiry in ms, renewed by every add; `null` for none. Left out: {@link DECAYED_TTL_HALF_LIVES}
   * half-lives, by when what the value held has faded below a millionth.
   */
  readonly ttlMs?: number | null;
}

/** A decayed value left alone this many half-lives has faded below a millionth (2^-20): it may expire. */
export const DECAYED_TTL_HALF_LIVES = 20;

/** The name a batch of writes gives a decayed add, for scripts that run batches (see {@link ADD_DECAYED_LUA}). */
export const ADD_DECAYED_COMMAND = 'TIERFLOW.ADD_DECAYED';

/**
 * Lua: the local function `addDecayed(key, words, at)`, `@tierflow/core`'s `addToSums` done where
 * the value is, so adds from many processes never lose one another. Scripts that run a batch of
 * writes include it and call it for an {@link ADD_DECAYED_COMMAND} write (Redis runs no script
 * from inside another). Its words, from `at`: now (ms), the half-life (ms), the field cap, the
 * expiry (ms, or '' for none), then field, increment, field, increment, …
 * The stored sums decay by 2^(-elapsed/their half-life) (never forwards: a clock behind the
 * stored one decays nothing), the increments are added (a field beyond the cap is not), and the
 * value is written back with the given half-life. Returns 1, or 0 having changed nothing when the
 * key holds something other than decayed sums. The JSON is written by hand: cjson keeps 14
 * significant digits of a number (17 round-trip a double) and writes an empty table as `[]`.
 */
export const ADD_DECAYED_LUA = `
local function addDecayed(key, words, at)
  local now, halfLife, cap, ttl = tonumber(words[at]), tonumber(words[at + 1]), tonumber(words[at + 2]), words[at + 3]
  local updatedAt, sums, count = now, {}, 0
  local stored = redis.call('GET', key)
  if stored then
    local ok, value = pcall(cjson.decode, stored)
    if not ok or type(value) ~= 'table' or type(value.updated_at) ~= 'number' or type(value.half_life_ms) ~= 'number' or not (value.half_life_ms > 0) or type(value.sums) ~= 'table' then return 0 end
    for field, sum in pairs(value.sums) do
      if type(field) ~= 'string' or type(sum) ~= 'number' then return 0 end
    end
    local factor = 1
    if now > value.updated_at then factor = 2 ^ (-(now - value.updated_at) / value.half_life_ms) end
    updatedAt = math.max(value.updated_at, now)
    for field, sum in pairs(value.sums) do
      sums[field] = sum * factor
      count = count + 1
    end
  end
  for i = at + 4, #words, 2 do
    local field, increment = words[i], tonumber(words[i + 1])
    if sums[field] ~= nil then
      sums[field] = sums[field] + increment
    elseif count < cap then
      sums[field] = increment
      count = count + 1
    end
  end
  local fields = {}
  for field, sum in pairs(sums) do fields[#fields + 1] = cjson.encode(field) .. ':' .. string.format('%.17g', sum) end
  local text = '{"updated_at":' .. string.format('%.17g', updatedAt) .. ',"half_life_ms":' .. string.format('%.17g', halfLife) .. ',"sums":{' .. table.concat(fields, ',') .. '}}'
  if ttl == '' then redis.call('SET', key, text) else redis.call('SET', key, text, 'PX', ttl) end
  return 1
end`;

/**
 * One decayed add on its own.
 *   KEYS[1]  the value's key
 *   ARGV[1]  now (ms), ARGV[2] the half-life (ms), ARGV[3] the field cap, ARGV[4] the expiry (ms) or '' for none
 *   ARGV[5..] field, increment, field, increment, …
 * Returns 1, or 0 having changed nothing when the key holds something other than decayed sums.
 */
export const ADD_DECAYED_SCRIPT = `${ADD_DECAYED_LUA}
return addDecayed(KEYS[1], ARGV, 1)`;

const SCRIPT_SHA = createHash('sha1').update(ADD_DECAYED_SCRIPT).digest('hex');

/**
 * The words after the key of a decayed add (ARGV of {@link ADD_DECAYED_SCRIPT}), checked. As
 * `addToSums` does, the increments go in sorted field order (so which new fields the cap leaves
 * out does not depend on key order), and a non-finite one is skipped.
 *
 * @throws TierflowError (permanent, code `invalid_argument`) for a half-life that is not a
 *   positive finite number, or a clock that is not finite.
 */
export function decayedAddWords(key: string, increments: Readonly<Record<string, number>>, options: AddDecayedOptions, ttlMs: number | null): string[] {
  const { halfLifeMs, now } = options;
  const problems = [
    ...(Number.isFinite(halfLifeMs) && halfLifeMs > 0 ? [] : [`half-life ${halfLifeMs} must be a positive number of milliseconds`]),
    ...(Number.isFinite(now) ? [] : [`now ${now} must be a finite number of milliseconds`]),
  ];
  if (problems.length > 0) throw TierflowError.permanent(`cannot add to beads:${key}: ${problems.join('; ')}`, { code: 'invalid_argument' });
  const words = [String(now), String(halfLifeMs), String(DECAYED_SUMS_FIELD_CAP), ttlMs === null ? '' : String(ttlMs)];
  for (const field of Object.keys(increments).sort()) {
    const value = increments[field];
    if (typeof value === 'number' && Number.isFinite(value)) words.push(field, String(value));
  }
  return words;
}

/** The expiry of a decayed add: its own, else {@link DECAYED_TTL_HALF_LIVES} half-lives (whole ms, at least 1). */
export function decayedTtl(options: AddDecayedOptions): number | null {
  if (options.ttlMs !== undefined) return options.ttlMs;
  return Math.max(1, Math.min(Number.MAX_SAFE_INTEGER, Math.ceil(DECAYED_TTL_HALF_LIVES * options.halfLifeMs)));
}

/** Runs {@link ADD_DECAYED_SCRIPT} by its SHA, sending the source when Redis does not know it yet. True when it added. */
export async function runDecayedAdd(redis: RedisClient, redisKey: string, words: readonly string[]): Promise<boolean> {
  try {
    return (await redis.evalsha(SCRIPT_SHA, 1, redisKey, ...words)) === 1;
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('NOSCRIPT')) throw error;
    return (await redis.eval(ADD_DECAYED_SCRIPT, 1, redisKey, ...words)) === 1;
  }
}
