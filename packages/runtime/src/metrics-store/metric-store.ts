import { TIER_SLUGS } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { z } from 'zod';
import { cellPrefixes } from '../cells/cells.js';
import type { RuntimeOptions } from '../config/options.js';
import { runScript, type RedisScript } from '../redis/scripts.js';
import { addHash, emptyMetrics, type StoredMetrics } from './store-read.js';
import { groupArgs, type WriteGroup } from './store-write.js';

/**
 * The deployment metric store in Redis (docs/operations.md#the-deployment-metric-store): per cell
 * and per writer (a tier's workers, or `serve`), a hash of totals since the deployment began and a
 * hash per minute that expires. Each writer has keys of its own, so a Redis ACL can give each
 * tier's user its own and no other's.
 */

/** Who writes into the store: a tier's workers, or `tierflow serve` (the gauges it samples). */
export const METRIC_WRITERS = [...Object.values(TIER_SLUGS), 'serve'] as const;
export type MetricWriter = (typeof METRIC_WRITERS)[number];

/** The store's keys of a writer in a cell. */
export const metricStoreKeys = (prefix: string, writer: MetricWriter) => ({
  /** Totals since the deployment began (a hash). */
  totals: `${prefix}:metrics:${writer}:totals`,
  /** What the minute starting at `minute` (minutes since the epoch) added (a hash that expires). */
  minute: (minute: number | '*') => `${prefix}:metrics:${writer}:minute:${minute}`,
});

/** The minute (since the epoch) a time in ms falls in. */
export const minuteOf = (ms: number): number => Math.floor(ms / 60_000);

/** Bounds on what the store keeps. */
export interface MetricStoreLimits {
  /** How long a minute's hash lives, ms: longer than the longest window a reader asks for. */
  readonly minuteTtlMs: number;
  /** The most fields a totals hash takes; past it, points of new series are dropped (and counted). */
  readonly totalsFieldCap: number;
  /** The most fields a minute's hash takes. */
  readonly minuteFieldCap: number;
}

export const METRIC_STORE_DEFAULTS: MetricStoreLimits = { minuteTtlMs: 48 * 3_600_000, totalsFieldCap: 20_000, minuteFieldCap: 5_000 };

/**
 * Writes one export into the store. A group goes into a hash whole, or not at all when the hash
 * holds as many fields as its cap allows and the group's series is new there (its first field
 * absent): then the hash's `!dropped` counts it. `a` adds its values (HINCRBYFLOAT) to the totals
 * and to the minute, `g` sets them in the minute, `d` sets them in the totals. The minute lives
 * ARGV[1] ms from its latest write.
 *   KEYS[1]  the writer's totals hash
 *   KEYS[2]  the writer's hash of the minute
 *   ARGV[1]  how long the minute's hash lives, ms
 *   ARGV[2]  the totals' field cap
 *   ARGV[3]  the minute's field cap
 *   ARGV[4…] groups: mode (a|g|d), number of fields n, then n pairs of field and value
 */
const WRITE: RedisScript = {
  lua: `
local function fits(key, cap, first, n)
  if redis.call('HEXISTS', key, first) == 1 then return true end
  if redis.call('HLEN', key) + n <= cap then return true end
  redis.call('HINCRBY', key, '!dropped', 1)
  return false
end
local totals = {KEYS[1], tonumber(ARGV[2])}
local minute = {KEYS[2], tonumber(ARGV[3])}
local i = 4
while i <= #ARGV do
  local mode = ARGV[i]
  local n = tonumber(ARGV[i + 1])
  local first = i + 2
  local targets = {}
  if mode == 'a' then targets = {totals, minute} elseif mode == 'g' then targets = {minute} else targets = {totals} end
  for _, target in ipairs(targets) do
    if fits(target[1], target[2], ARGV[first], n) then
      for j = 0, n - 1 do
        local field = ARGV[first + 2 * j]
        local value = ARGV[first + 2 * j + 1]
        if mode == 'a' then redis.call('HINCRBYFLOAT', target[1], field, value) else redis.call('HSET', target[1], field, value) end
      end
    end
  end
  i = first + 2 * n
end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
return 1`,
};

/** Writes groups into a writer's hashes of a cell, for the minute `atMs` falls in: one script. Nothing to write, no call. */
export async function writeToStore(
  redis: RedisClient,
  target: { readonly prefix: string; readonly writer: MetricWriter },
  groups: readonly WriteGroup[],
  atMs: number,
  limits: MetricStoreLimits = METRIC_STORE_DEFAULTS,
): Promise<void> {
  if (groups.length === 0) return;
  const keys = metricStoreKeys(target.prefix, target.writer);
  await runScript(redis, WRITE, [keys.totals, keys.minute(minuteOf(atMs))], [limits.minuteTtlMs, limits.totalsFieldCap, limits.minuteFieldCap, ...groupArgs(groups)]);
}

const hashSchema = z.record(z.string(), z.string());

/** The hashes at `keys` of one cell, read in one pipeline (a cell's keys share its slot), parsed. */
async function readHashes(redis: RedisClient, keys: readonly string[]): Promise<Record<string, string>[]> {
  if (keys.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.hgetall(key);
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([error, reply]) => {
    if (error) throw error;
    const parsed = hashSchema.safeParse(reply);
    return parsed.success ? parsed.data : {};
  });
}

/** The store's totals: every writer's of every cell, taken together. */
export async function readStoreTotals(redis: RedisClient, runtime: Pick<RuntimeOptions, 'prefix' | 'cells'>): Promise<StoredMetrics> {
  const metrics = emptyMetrics();
  const cells = await Promise.all(
    cellPrefixes(runtime).map((prefix) =>
      readHashes(
        redis,
        METRIC_WRITERS.map((writer) => metricStoreKeys(prefix, writer).totals),
      ),
    ),
  );
  for (const hash of cells.flat()) addHash(metrics, hash);
  return metrics;
}

/** A minute of the store, every writer's of every cell taken together. */
export interface StoredMinute {
  /** Minutes since the epoch. */
  readonly minute: number;
  readonly metrics: StoredMetrics;
}

/**
 * The store's minutes from `fromMinute` to `toMinute` (both included), in order; a minute nobody
 * wrote reads as empty. Only the metrics `names` lists, when given: decoding is most of a long
 * window's cost.
 */
export async function readStoreMinutes(
  redis: RedisClient,
  runtime: Pick<RuntimeOptions, 'prefix' | 'cells'>,
  fromMinute: number,
  toMinute: number,
  names?: ReadonlySet<string>,
): Promise<StoredMinute[]> {
  const minutes = Array.from({ length: Math.max(0, toMinute - fromMinute + 1) }, (_, index) => fromMinute + index);
  const slots = minutes.flatMap((minute) => METRIC_WRITERS.map((writer) => ({ minute, writer })));
  const byMinute = new Map(minutes.map((minute) => [minute, emptyMetrics()]));
  const cells = await Promise.all(
    cellPrefixes(runtime).map((prefix) =>
      readHashes(
        redis,
        slots.map(({ minute, writer }) => metricStoreKeys(prefix, writer).minute(minute)),
      ),
    ),
  );
  for (const hashes of cells) {
    hashes.forEach((hash, index) => {
      const into = byMinute.get(slots[index]!.minute);
      if (into) addHash(into, hash, names);
    });
  }
  return minutes.map((minute) => ({ minute, metrics: byMinute.get(minute) ?? emptyMetrics() }));
}
