import type { RedisClient } from '@tierflow/beads';
import type { ModelAdmission, ModelLimiter } from '../policy/model-calls.js';
import { runScript, type RedisScript } from '../redis/scripts.js';
import { limits, modelLimitKeys, SLOT_POLL_MS, WAITER_GRACE_MS } from './model-limit.js';
import { MAX_ROOM_IDS, type RoomWaits } from './room-waits.js';

/*
 * A model's limits over a sliding window (docs/operations.md#model-limits): the window sorted set
 * holds each request granted in the last window by when, the tokens hash each one's tokens and
 * `#total` their sum; a request leaves both once it is older than the window. Slots hold requests
 * in flight by when they lapse. Time is Redis's own (TIME), so processes on skewed hosts agree.
 */
const SHARED = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local win = tonumber(ARGV[#ARGV]) or 60000
-- Requests older than the window leave it, and their tokens the total; in batches, as unpack is bounded.
local function trim()
  while true do
    local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - win, 'LIMIT', 0, 500)
    if #old == 0 then return end
    local amounts = redis.call('HMGET', KEYS[2], unpack(old))
    local freed = 0
    for i = 1, #old do freed = freed + (tonumber(amounts[i]) or 0) end
    redis.call('ZREM', KEYS[1], unpack(old))
    redis.call('HDEL', KEYS[2], unpack(old))
    if freed > 0 then redis.call('HINCRBY', KEYS[2], '#total', -freed) end
  end
end
`;

/**
 * Reserves one request of a model, in its turn.
 *   KEYS[1]  the window sorted set, KEYS[2] the tokens hash, KEYS[3] the slots sorted set, KEYS[4] the pause string,
 *   KEYS[5]  the waiting sorted set, KEYS[6] the turns hash, KEYS[7] the waiters' leases sorted set
 *   ARGV[1]  the request's id
 *   ARGV[2]  its tokens (the prompt's estimate and max_tokens)
 *   ARGV[3]  rpm, ARGV[4] tpm, ARGV[5] concurrent ('0': no such limit)
 *   ARGV[6]  how long its slot is held at most (ms), ARGV[7] how long to wait for a slot or a turn before asking again (ms)
 *   ARGV[8]  its run (the root's id), ARGV[9] its delegation's priority (0, critical, to 4)
 *   ARGV[10] how long past its wait a waiter keeps its place without asking again (ms)
 *   ARGV[11] the window (ms)
 * A paused model waits out its pause. A model with limits serves its callers in turn: each joins
 * the waiting set once, ordered by priority, then by its run's count of calls waiting (the k-th
 * call of a run comes after every run's (k-1)-th), then by arrival; it is granted when it fits every
 * limit and no more callers stand before it than there is room for (a request of more tokens
 * than tpm fits an empty window). A granted request is counted in the window, its tokens held, its
 * slot taken, and leaves the waiting set; when that empties, the runs' counts start again. A waiter
 * that does not ask again within its wait and the grace loses its place. The same id again is
 * granted again, changing nothing. Returns { 1, 0, '' } or { 0, ms to wait, what held it: 'paused',
 * 'rpm', 'tpm', 'concurrent' or 'queued' (behind others in turn) }.
 */
const RESERVE: RedisScript = {
  lua: `${SHARED}
local id, ask = ARGV[1], tonumber(ARGV[2]) or 0
local rpm, tpm, conc = tonumber(ARGV[3]) or 0, tonumber(ARGV[4]) or 0, tonumber(ARGV[5]) or 0
local poll, grace = tonumber(ARGV[7]) or 100, tonumber(ARGV[10]) or 1000
local paused = redis.call('PTTL', KEYS[4])
if paused > 0 then return { 0, paused, 'paused' } end
if redis.call('ZSCORE', KEYS[1], id) or redis.call('ZSCORE', KEYS[3], id) then return { 1, 0, '' } end
if rpm == 0 and tpm == 0 and conc == 0 then return { 1, 0, '' } end
trim()
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
-- Waiters that stopped asking lose their place.
local gone = redis.call('ZRANGEBYSCORE', KEYS[7], '-inf', now, 'LIMIT', 0, 500)
if #gone > 0 then
  redis.call('ZREM', KEYS[5], unpack(gone))
  redis.call('ZREM', KEYS[7], unpack(gone))
end
if not redis.call('ZSCORE', KEYS[5], id) then
  if redis.call('ZCARD', KEYS[5]) == 0 then redis.call('DEL', KEYS[6]) end
  local turn = redis.call('HINCRBY', KEYS[6], 'run:' .. ARGV[8], 1)
  local seq = redis.call('HINCRBY', KEYS[6], '#seq', 1)
  local priority = math.max(0, math.min(9, tonumber(ARGV[9]) or 2))
  redis.call('ZADD', KEYS[5], priority * 1e15 + math.min(turn, 9999999) * 1e8 + seq % 1e8, id)
end
local wait, reason = 0, ''
local function later(ms, why) if ms > wait then wait, reason = ms, why end end
local n = redis.call('ZCARD', KEYS[1])
local room = 1e12
if rpm > 0 then
  room = math.min(room, rpm - n)
  if n >= rpm then
    local oldest = redis.call('ZRANGE', KEYS[1], n - rpm, n - rpm, 'WITHSCORES')
    later(tonumber(oldest[2]) + win - now + 1, 'rpm')
  end
end
if tpm > 0 then
  local total = tonumber(redis.call('HGET', KEYS[2], '#total')) or 0
  local over = total + math.min(ask, tpm) - tpm
  if over > 0 then
    -- Oldest first, until what leaves makes room.
    local entries = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
    local freed, at = 0, nil
    for i = 1, #entries, 2 do
      freed = freed + (tonumber(redis.call('HGET', KEYS[2], entries[i])) or 0)
      if freed >= over then at = tonumber(entries[i + 1]) break end
    end
    later(at and (at + win - now + 1) or win, 'tpm')
  end
end
if conc > 0 then
  local busy = redis.call('ZCARD', KEYS[3])
  room = math.min(room, conc - busy)
  if busy >= conc then later(poll, 'concurrent') end
end
if wait == 0 and redis.call('ZRANK', KEYS[5], id) >= math.max(1, room) then later(poll, 'queued') end
if wait > 0 then
  redis.call('ZADD', KEYS[7], now + wait + grace, id)
  redis.call('PEXPIRE', KEYS[5], wait + grace + win)
  redis.call('PEXPIRE', KEYS[6], wait + grace + win)
  redis.call('PEXPIRE', KEYS[7], wait + grace + win)
  return { 0, wait, reason }
end
redis.call('ZREM', KEYS[5], id)
redis.call('ZREM', KEYS[7], id)
if rpm > 0 or tpm > 0 then
  redis.call('ZADD', KEYS[1], now, id)
  redis.call('HSET', KEYS[2], id, ask)
  redis.call('HINCRBY', KEYS[2], '#total', ask)
  redis.call('PEXPIRE', KEYS[1], win * 2)
  redis.call('PEXPIRE', KEYS[2], win * 2)
end
if conc > 0 then
  local lease = tonumber(ARGV[6]) or 600000
  redis.call('ZADD', KEYS[3], now + lease, id)
  if redis.call('PTTL', KEYS[3]) < lease then redis.call('PEXPIRE', KEYS[3], lease) end
end
return { 1, 0, '' }`,
};

/**
 * Settles a request of a model: a granted one, or a waiter that gave up (its deadline, a cancel).
 *   KEYS[1]  the window sorted set, KEYS[2] the tokens hash, KEYS[3] the slots sorted set,
 *   KEYS[4]  the waiting sorted set, KEYS[5] the waiters' leases sorted set
 *   ARGV[1]  the request's id
 *   ARGV[2]  the tokens the server reported ('-1': none reported, the estimate stands)
 *   ARGV[3]  '1' when the request never left (no connection): it leaves the window too
 *   ARGV[4]  the concurrent limit ('0': none)
 *   ARGV[5]  the window (ms)
 * Releases its slot and its place in turn, and gives back what it held beyond what it used (or
 * takes more, when it used more). A request already out of the window changes nothing there.
 * Returns { the tokens it held or -1, then the waiters that the room it freed lets through, first
 * in turn } (RoomWaits: they are told, so they need not wait for their next poll).
 */
const SETTLE: RedisScript = {
  lua: `${SHARED}
local id, used, conc = ARGV[1], tonumber(ARGV[2]) or -1, tonumber(ARGV[4]) or 0
local freed = redis.call('ZREM', KEYS[3], id) + redis.call('ZREM', KEYS[4], id)
redis.call('ZREM', KEYS[5], id)
local held = tonumber(redis.call('HGET', KEYS[2], id) or '')
if ARGV[3] == '1' then
  redis.call('ZREM', KEYS[1], id)
  if held then
    redis.call('HDEL', KEYS[2], id)
    if held > 0 then redis.call('HINCRBY', KEYS[2], '#total', -held) end
  end
elseif held and used >= 0 and used ~= held then
  redis.call('HSET', KEYS[2], id, used)
  redis.call('HINCRBY', KEYS[2], '#total', used - held)
end
trim()
local reply = { held or -1 }
if conc > 0 and freed > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  local room = math.min(conc - redis.call('ZCARD', KEYS[3]), ${MAX_ROOM_IDS})
  if room > 0 then
    for _, waiter in ipairs(redis.call('ZRANGE', KEYS[4], 0, room - 1)) do reply[#reply + 1] = waiter end
  end
end
return reply`,
};

/**
 * Pauses a model.
 *   KEYS[1]  the pause string
 *   ARGV[1]  how long (ms)
 * Sets the pause unless one that ends later is set already. Returns the pause left (ms).
 */
const PAUSE: RedisScript = {
  lua: `
local ms = tonumber(ARGV[1]) or 0
local left = redis.call('PTTL', KEYS[1])
if ms > 0 and left < ms then
  redis.call('SET', KEYS[1], '1', 'PX', ms)
  return ms
end
return math.max(left, 0)`,
};

/** How a limiter tells waiters of room it freed, in any process, and hears of room freed for its own. */
export interface RoomNotices {
  /** This process's calls waiting for room. */
  readonly waits: RoomWaits;
  /** Sends a notice naming the waiters `ids` on the control channel; it may fail (the waiters then ask at their poll). */
  publish(ids: readonly string[]): Promise<unknown>;
}

/**
 * The deployment's {@link ModelLimiter} on `redis`, under `prefix` (the deployment's, not a cell's:
 * limits hold across cells). With `notices`, a call waiting for a concurrent slot or its turn
 * sleeps until a settle names it rather than polling (docs/operations.md#model-limits).
 */
export function redisModelLimiter(redis: RedisClient, prefix: string, notices?: RoomNotices): ModelLimiter {
  return {
    reserve: async (model, limit, id, tokens, leaseMs, waiter) => {
      const keys = modelLimitKeys(prefix, model);
      // A model without limits holds nothing and waits for nothing but a busy server's pause: one read, not the script.
      if (!limits(limit)) {
        const paused = await redis.pttl(keys.pause);
        return paused > 0 ? { granted: false, waitMs: paused, reason: 'paused' } : { granted: true };
      }
      const args = [
        id,
        whole(tokens),
        limit.rpm ?? 0,
        limit.tpm ?? 0,
        limit.concurrent ?? 0,
        Math.max(1, Math.ceil(leaseMs)),
        SLOT_POLL_MS,
        waiter.run,
        waiter.priority,
        WAITER_GRACE_MS,
        limit.windowMs,
      ];
      return readAdmission(await runScript(redis, RESERVE, [keys.window, keys.tokens, keys.slots, keys.pause, keys.queue, keys.turns, keys.leases], args));
    },
    settle: async (model, limit, id, used, unsent) => {
      if (!limits(limit)) return;
      const keys = modelLimitKeys(prefix, model);
      const reply = await runScript(
        redis,
        SETTLE,
        [keys.window, keys.tokens, keys.slots, keys.queue, keys.leases],
        [id, used === null ? -1 : whole(used), unsent ? '1' : '0', limit.concurrent ?? 0, limit.windowMs],
      );
      const ready = roomIds(reply);
      if (notices && ready.length > 0) await notices.publish(ready).catch(() => undefined);
    },
    pause: async (model, ms) => {
      await runScript(redis, PAUSE, [modelLimitKeys(prefix, model).pause], [Math.max(0, Math.ceil(ms))]);
    },
    ...(notices ? { waitForRoom: (id: string, ms: number, signal: AbortSignal) => notices.waits.wait(id, ms, signal) } : {}),
  };
}

/** The waiters a settle's reply names (after the tokens it held), read without trusting its shape. */
export function roomIds(reply: unknown): string[] {
  if (!Array.isArray(reply)) return [];
  return (reply as unknown[]).slice(1, 1 + MAX_ROOM_IDS).filter((id): id is string => typeof id === 'string' && id.length > 0);
}

function whole(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.ceil(value) : 0;
}

const REASONS = new Set(['rpm', 'tpm', 'concurrent', 'paused', 'queued']);

/** The reserve script's reply, read without trusting its shape: anything else is a short wait, never a grant. */
export function readAdmission(reply: unknown): ModelAdmission {
  const [granted, waitMs, reason] = Array.isArray(reply) ? (reply as unknown[]) : [];
  if (Number(granted) === 1) return { granted: true };
  const ms = Number(waitMs);
  return {
    granted: false,
    waitMs: Number.isFinite(ms) && ms > 0 ? ms : SLOT_POLL_MS,
    reason: typeof reason === 'string' && REASONS.has(reason) ? (reason as Extract<ModelAdmission, { granted: false }>['reason']) : 'concurrent',
  };
}
