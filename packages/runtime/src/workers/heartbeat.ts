import { hostname } from 'node:os';

import { TIER_NAMES, type TierName, type TierSlug } from '@tierflow/protocol';
import { scanKeys, type RedisClient } from '@tierflow/beads';
import { cellPrefixes, cellsGlob } from '../cells/cells.js';
import type { RuntimeOptions } from '../config/options.js';
import { z } from 'zod';
import { controlKeys } from '../cancellation/control-keys.js';
import type { TierLogger } from '../policy/handler.js';

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
});
export type WorkerBeat = z.infer<typeof workerBeatSchema>;

/** What a heartbeat needs of its worker. */
export interface HeartbeatOptions {
  readonly redis: RedisClient;
  /** `<prefix>:workers:<tier slug>:<host>:<pid>` (control key `worker`). */
  readonly key: string;
  readonly tier: TierName;
  readonly concurrency: number;
  readonly specialists: readonly string[] | null;
  /** Jobs running now. */
  readonly running: () => number;
  readonly intervalMs: number;
  readonly now: () => number;
  readonly log: TierLogger;
}

/**
 * A worker's heartbeat: a record that expires after three intervals, written again every
 * interval, so a worker that dies drops out of `tierflow workers` by itself, and one that stops
 * cleanly takes its record with it. One SET a beat.
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
    await this.options.redis.del(this.options.key).catch(() => undefined);
  }

  /** The record of a beat at `now`. */
  record(now: number): WorkerBeat {
    const { tier, concurrency, specialists, running } = this.options;
    return {
      tier,
      host: hostname(),
      pid: process.pid,
      started_at: this.startedAt,
      beat_at: new Date(now).toISOString(),
      concurrency,
      running: running(),
      specialists: specialists ? [...specialists] : null,
    };
  }

  private beat(): void {
    const { redis, key, intervalMs, now, log } = this.options;
    redis.set(key, JSON.stringify(this.record(now())), 'PX', 3 * intervalMs).catch((error: unknown) => log.warn('heartbeat failed', { error: String(error) }));
  }
}

/** The records of live workers among `texts` (what the keys held), leniently: what does not parse is left out. Sorted from the Monitor down, then by host and pid. Pure. */
export function readBeats(texts: readonly (string | null)[]): WorkerBeat[] {
  const beats = texts.flatMap((text) => {
    if (text === null) return [];
    try {
      const parsed = workerBeatSchema.safeParse(JSON.parse(text));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
  const rank = (tier: string): number => (TIER_NAMES as readonly string[]).indexOf(tier);
  return beats.sort((a, b) => rank(a.tier) - rank(b.tier) || a.host.localeCompare(b.host) || a.pid - b.pid);
}

/**
 * Every live worker of a deployment, by one SCAN over the heartbeat keys of all its cells. A
 * process beats once per cell it serves; its beats are read as one worker, with the jobs it runs
 * and may run summed over its cells.
 */
export async function listWorkers(redis: RedisClient, runtime: Pick<RuntimeOptions, 'prefix' | 'cells'>): Promise<WorkerBeat[]> {
  const keys = await scanKeys(redis, controlKeys(cellsGlob(runtime)).worker('*' as TierSlug, '*'));
  // One MGET per cell: in a Cluster, a cell's keys share its slot, and only those may go together.
  const texts = await Promise.all(
    cellPrefixes(runtime)
      .map((prefix) => keys.filter((key) => key.startsWith(`${prefix}:`)))
      .filter((group) => group.length > 0)
      .map((group) => redis.mget(...group)),
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
