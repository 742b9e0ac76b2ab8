import { hostname } from 'node:os';

import { TIER_NAMES, TIER_SLUGS, type TierName, type TierSlug } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { cellPrefixes } from '../cells/cells.js';
import type { RuntimeOptions } from '../config/options.js';
import { z } from 'zod';
import { controlKeys, type ControlKeys } from '../redis/keys.js';
import type { TierLogger } from '../policy/handler.js';
import { runScript, type RedisScript } from '../redis/scripts.js';
import { readStoredRecord } from '../redis/stored-record.js';

/** What a worker says of itself in each beat: `tierflow workers` lists these. */
export const workerBeatSchema = z.object({
  tier: z.string(),
  host: z.string(),
  pid: z.int(),
  started_at: z.iso.datetime({ offset: true }),
  beat_at: z.iso.datetime({ offset: true }),
  concurrency: z.int().nonnegative(),
  /** Jobs running in it at the beat. */
  running: z.int().nonnegative(),
  /** What it serves, when its tier has a say: the Fleet's specialists. */
  specialists: z.array(z.string()).nullable(),
  /** Where its own metrics are scraped (OTEL_METRICS_EXPORTER=prometheus); null without an endpoint, absent from a worker of an earlier version. */
  metrics_url: z.string().max(2048).nullable().optional(),
});
export type WorkerBeat = z.infer<typeof workerBeatSchema>;

/** What a heartbeat needs of its worker. */
export interface HeartbeatOptions {
  readonly redis: RedisClient;
  /** The cell's keys: the beat goes to `worker(slug, processId)`, and the process id into `workerIndex(slug)`. */
  readonly keys: Pick<ControlKeys, 'worker' | 'workerIndex'>;
  readonly slug: TierSlug;
  /** `<host>:<pid>`. */
  readonly processId: string;
  readonly tier: TierName;
  readonly concurrency: number;
  readonly specialists: readonly string[] | null;
  /** Where the process's /metrics endpoint is scraped, if it has one. */
  readonly metricsUrl?: string | null;
  /** Jobs running now. */
  readonly running: () => number;
  readonly intervalMs: number;
  readonly now: () => number;
  readonly log: TierLogger;
}

/**
 * Writes a worker's beat and keeps its tier's registry: the record, with its expiry; its process
 * id in the registry, scored by when the record expires (on Redis's clock); the entries whose
 * records have expired dropped. The registry lives as long as its latest entry.
 *   KEYS[1]  the worker's record (control key `worker`)
 *   KEYS[2]  its tier's registry (control key `workerIndex`)
 *   ARGV[1]  the record, JSON
 *   ARGV[2]  how long it lives, ms
 *   ARGV[3]  the process id
 */
const BEAT: RedisScript = {
  lua: `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1`,
};

/**
 * Takes a worker that stops out of its tier's registry, with its record.
 *   KEYS[1]  the worker's record
 *   KEYS[2]  its tier's registry
 *   ARGV[1]  the process id
 */
const LEAVE: RedisScript = {
  lua: `
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1`,
};

/** The most workers of a tier (in a cell) a listing reads: a bound on what a registry someone filled costs a reader. */
const MAX_LISTED = 1_000;

/**
 * A worker's heartbeat: a record that expires after three intervals, written again every
 * interval, so a worker that dies drops out of `tierflow workers` by itself, and one that stops
 * cleanly takes its record with it. One script a beat, which also keeps the tier's registry.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | null = null;
  private readonly startedAt: string;

  constructor(private readonly options: HeartbeatOptions) {
    this.startedAt = new Date(options.now()).toISOString();
  }

  start(): void {
    this.beat();
    this.timer = setInterval(() => this.beat(), this.options.intervalMs);
    // A heartbeat alone must not keep a process alive.
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const { redis, keys, slug, processId } = this.options;
    await runScript(redis, LEAVE, [keys.worker(slug, processId), keys.workerIndex(slug)], [processId]).catch(() => undefined);
  }

  /** The record of a beat at `now`. */
  record(now: number): WorkerBeat {
    const { tier, concurrency, specialists, running, metricsUrl } = this.options;
    return {
      tier,
      host: hostname(),
      pid: process.pid,
      started_at: this.startedAt,
      beat_at: new Date(now).toISOString(),
      concurrency,
      running: running(),
      specialists: specialists ? [...specialists] : null,
      metrics_url: metricsUrl ?? null,
    };
  }

  private beat(): void {
    const { redis, keys, slug, processId, intervalMs, now, log } = this.options;
    runScript(redis, BEAT, [keys.worker(slug, processId), keys.workerIndex(slug)], [JSON.stringify(this.record(now())), 3 * intervalMs, processId]).catch((error: unknown) =>
      log.warn('heartbeat failed', { error: String(error) }),
    );
  }
}

/** The records of live workers among `texts` (what the keys held), leniently: what does not parse is left out. Sorted from the Monitor down, then by host and pid. Pure. */
export function readBeats(texts: readonly (string | null)[]): WorkerBeat[] {
  const beats = texts.flatMap((text) => {
    if (text === null) return [];
    const read = readStoredRecord(text, workerBeatSchema, { what: 'a worker beat' });
    return read.ok ? [read.value] : [];
  });
  const rank = (tier: string): number => (TIER_NAMES as readonly string[]).indexOf(tier);
  return beats.sort((a, b) => rank(a.tier) - rank(b.tier) || a.host.localeCompare(b.host) || a.pid - b.pid);
}

/**
 * Every live worker of a deployment (of `tiers`, all when left out), from the registries of all
 * its cells: one ZRANGE per tier and cell, then one MGET per cell of the records they name, so
 * what it costs follows the number of workers, never the size of the keyspace. An entry whose
 * record has expired (a worker that died) reads as nothing. A process beats once per cell it
 * serves; its beats are read as one worker, with the jobs it runs and may run summed over its cells.
 */
export async function listWorkers(redis: RedisClient, runtime: Pick<RuntimeOptions, 'prefix' | 'cells'>, tiers: readonly TierSlug[] = Object.values(TIER_SLUGS)): Promise<WorkerBeat[]> {
  const texts = await Promise.all(
    cellPrefixes(runtime).map(async (prefix) => {
      const keys = controlKeys(prefix);
      const members = await Promise.all(tiers.map(async (slug) => (await redis.zrange(keys.workerIndex(slug), 0, MAX_LISTED - 1)).map((processId) => keys.worker(slug, processId))));
      const records = members.flat();
      // One MGET per cell: in a Cluster, a cell's keys share its slot, and only those may go together.
      return records.length > 0 ? redis.mget(...records) : [];
    }),
  );
  return mergeBeats(readBeats(texts.flat()));
}

/** One beat per process: the beats of each cell it serves taken together. Keeps the order. Pure. */
export function mergeBeats(beats: readonly WorkerBeat[]): WorkerBeat[] {
  const merged = new Map<string, WorkerBeat>();
  for (const beat of beats) {
    const id = `${beat.tier} ${beat.host} ${beat.pid}`;
    const seen = merged.get(id);
    merged.set(
      id,
      seen
        ? {
            ...seen,
            started_at: seen.started_at < beat.started_at ? seen.started_at : beat.started_at,
            beat_at: seen.beat_at > beat.beat_at ? seen.beat_at : beat.beat_at,
            concurrency: seen.concurrency + beat.concurrency,
            running: seen.running + beat.running,
          }
        : beat,
    );
  }
  return [...merged.values()];
}
