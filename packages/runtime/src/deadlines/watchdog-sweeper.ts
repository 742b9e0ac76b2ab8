import type { RedisClient } from '@tierflow/beads';
import { runScript, type RedisScript } from '../redis/scripts.js';

/**
 * Claims due watchdogs atomically: each due member is pushed a lease ahead, so exactly one
 * process runs it now, and a process that dies while running it leaves it to come due again.
 * What is due is decided by Redis's clock, the one every deadline is set on, never the caller's.
 *   KEYS[1]  the due-watchdogs sorted set (score: when to look, ms since the epoch)
 *   ARGV[1]  the lease, in ms
 *   ARGV[2]  the most members to claim
 * Returns the claimed members.
 */
const CLAIM_DUE: RedisScript = {
  lua: `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local due = redis.call('ZRANGE', KEYS[1], '-inf', now, 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[2]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), member) end
return due`,
};

/** How long a claimed watchdog is held before another process may take it over. */
export const WATCH_LEASE_MS = 30_000;

export interface SweeperOptions<T> {
  readonly redis: RedisClient;
  readonly key: string;
  /** How often the set is looked at: the precision of deadlines, at one Redis call per beat. */
  readonly intervalMs: number;
  /** A member as stored, or null for one of the wrong shape. */
  readonly parse: (member: string) => T | null;
  /** Runs one watchdog; answers when to look again, or null when it is done. */
  readonly run: (watch: T) => Promise<number | null>;
  readonly onError: (error: unknown) => void;
  /** Told of a member of the wrong shape, which is dropped from the set. */
  readonly onMalformed?: (member: string) => void;
}

/**
 * Sweeps the due-watchdogs set. A parent round adds itself in the same MULTI as its step state
 * and removes itself when it settles, so a watchdog costs no queue job, and no Redis call unless
 * a deadline is actually missed.
 */
export class WatchdogSweeper<T> {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: SweeperOptions<T>) {}

  start(): void {
    const beat = (): void => {
      if (this.stopped) return;
      this.sweeping = this.sweep().catch(this.options.onError);
      void this.sweeping.then(() => {
        if (!this.stopped) this.timer = setTimeout(beat, this.options.intervalMs);
      });
    };
    beat();
  }

  /** Stops sweeping and waits for the watchdogs running now. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.sweeping;
  }

  private async sweep(): Promise<void> {
    const { redis, key, run } = this.options;
    const reply = await runScript(redis, CLAIM_DUE, [key], [WATCH_LEASE_MS, 50]);
    const due = Array.isArray(reply) ? reply.filter((member): member is string => typeof member === 'string') : [];
    await Promise.all(
      due.map(async (member) => {
        try {
          const watch = this.options.parse(member);
          if (!watch) this.options.onMalformed?.(member);
          const next = watch ? await run(watch) : null;
          if (next === null) await redis.zrem(key, member);
          else await redis.zadd(key, next, member);
        } catch (error) {
          // Its lease runs out and another sweep takes it again.
          this.options.onError(error);
        }
      }),
    );
  }
}
