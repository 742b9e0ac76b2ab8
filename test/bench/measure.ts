import { redisClient } from '@tierflow/testing';
import type { BenchHalf } from './bench-half.js';
import { countersSince, redisCounters } from './redis-stats.js';
import { rssOf, type RssFigures } from './rss.js';
import { percentile } from './shape.js';

export interface HalfFigures {
  readonly rootsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly commandsPerRoot: number;
  readonly cpuMicrosPerRoot: number;
  readonly rss: RssFigures;
}

export interface MeasureOptions {
  readonly warmUp: number;
  readonly sequential: number;
  readonly inFlight: number;
}

/** Sequential single-root latency, then throughput with `inFlight` roots enqueued at once. */
export async function measureHalf(half: BenchHalf, options: MeasureOptions): Promise<HalfFigures> {
  const runOne = async (): Promise<void> => half.finished(await half.enqueue(), 30_000);
  // Warm up connections and script caches.
  for (let i = 0; i < options.warmUp; i++) await runOne();
  const latencies: number[] = [];
  for (let i = 0; i < options.sequential; i++) {
    const started = performance.now();
    await runOne();
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);

  const redis = redisClient(half.redisUrl);
  try {
    const before = await redisCounters(redis);
    const started = performance.now();
    const ids = await Promise.all(Array.from({ length: options.inFlight }, () => half.enqueue()));
    await Promise.all(ids.map((id) => half.finished(id, 600_000)));
    const seconds = (performance.now() - started) / 1000;
    const used = countersSince(before, await redisCounters(redis));
    return {
      rootsPerSecond: options.inFlight / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      commandsPerRoot: used.commands / options.inFlight,
      cpuMicrosPerRoot: used.cpuMicros / options.inFlight,
      rss: rssOf(half.workerPids),
    };
  } finally {
    redis.disconnect();
  }
}
