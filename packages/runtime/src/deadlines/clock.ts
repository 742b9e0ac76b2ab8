import { performance } from 'node:perf_hooks';
import type { RedisClient } from '@tierflow/beads';

/** Milliseconds since the epoch, on the one clock a deployment shares. */
export interface Clock {
  now(): number;
}

/** This host's clock, for code that has no Redis to ask (tests, tools). */
export const systemClock: Clock = { now: () => Date.now() };

/** How often a process measures Redis's clock again: a monotonic clock drifts a few ms a minute at most. */
export const CLOCK_SYNC_MS = 60_000;
/** TIME samples per measurement; the one with the shortest round trip is kept. */
const SAMPLES = 3;

/**
 * Redis's clock, read through this process's monotonic clock. Deadlines are set by one process
 * and enforced by others, so they must all read the same clock, and this host's wall clock is
 * not it: a host running a minute fast would time out healthy work everywhere. The clock is
 * measured with TIME (the shortest of a few round trips, taken at its midpoint) when the process
 * starts and every minute after, and read between measurements as that instant plus the
 * monotonic time elapsed, so neither a skewed nor a stepped wall clock here moves it.
 */
export class RedisClock implements Clock {
  private anchor = { server: Date.now(), monotonic: performance.now() };
  private timer: NodeJS.Timeout | undefined;

  private constructor(private readonly redis: RedisClient) {}

  /** Measures Redis's clock, then keeps measuring it every {@link CLOCK_SYNC_MS} until {@link stop}. */
  static async start(redis: RedisClient, refreshMs = CLOCK_SYNC_MS): Promise<RedisClock> {
    const clock = new RedisClock(redis);
    await clock.sync();
    const refresh = (): void => {
      // A failed measurement keeps the last one: RedisClient is the same clock a minute later.
      clock.timer = setTimeout(
        () =>
          void clock
            .sync()
            .catch(() => undefined)
            .finally(refresh),
        refreshMs,
      );
      clock.timer.unref();
    };
    refresh();
    return clock;
  }

  now(): number {
    return Math.round(this.anchor.server + (performance.now() - this.anchor.monotonic));
  }

  /** Measures Redis's clock now. */
  async sync(): Promise<void> {
    let best: { rtt: number; server: number; monotonic: number } | null = null;
    for (let sample = 0; sample < SAMPLES; sample++) {
      const sent = performance.now();
      const [seconds, micros] = await this.redis.time();
      const received = performance.now();
      const server = Number(seconds) * 1000 + Number(micros) / 1000;
      if (!Number.isFinite(server)) continue;
      if (best === null || received - sent < best.rtt) best = { rtt: received - sent, server, monotonic: (sent + received) / 2 };
    }
    if (best) this.anchor = { server: best.server, monotonic: best.monotonic };
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
