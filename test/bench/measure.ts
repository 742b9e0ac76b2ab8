import { redisClient } from '@tierflow/testing';
import type { BenchHalf } from './bench-half.js';
import { totalCpuMicros } from './process-cpu.js';
import { countersSince, redisCounters, type RedisCounters } from './redis-stats.js';
import { rssOf, type RssFigures } from './rss.js';
import { percentile } from './shape.js';

export interface HalfFigures {
  readonly rootsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly commandsPerRoot: number;
  readonly cpuMicrosPerRoot: number;
  /** Socket reads Redis made per root: round trips, less what clients sent together. */
  readonly readsPerRoot: number;
  /** Kilobytes per root that Redis read from clients and wrote to them. */
  readonly inKbPerRoot: number;
  readonly outKbPerRoot: number;
  /** The busiest server's share of that CPU: 1 on one server, 1/N when N share the work evenly. */
  readonly busiestCpuShare: number;
  /** CPU time of the worker processes together (user + system), per root. */
  readonly workerCpuMicrosPerRoot: number;
  /** The bench's own process: the half's client enqueueing and waiting, and (for Tierflow) the span receiver. */
  readonly driverCpuMicrosPerRoot: number;
  readonly rss: RssFigures;
}

export interface MeasureOptions {
  /**
   * Roots run one at a time before measuring. A long-running worker is warm: its code compiled
   * and, with tracing on, its exporter past its first batches (sent every 5 s), so warm-up runs
   * a few seconds' worth ({@link WARM_UP_ROOTS}).
   */
  readonly warmUp: number;
  readonly sequential: number;
  readonly inFlight: number;
}

/** Enough roots, one at a time, to span a few seconds and the tracing exporter's first batches. */
export const WARM_UP_ROOTS = 200;

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

  const servers = half.redisUrls.map((url) => redisClient(url));
  const counters = (): Promise<RedisCounters[]> => Promise.all(servers.map((server) => redisCounters(server)));
  try {
    const before = await counters();
    const workersBefore = totalCpuMicros(half.workerPids);
    const driverBefore = process.cpuUsage();
    const started = performance.now();
    const ids = await Promise.all(Array.from({ length: options.inFlight }, () => half.enqueue()));
    await Promise.all(ids.map((id) => half.finished(id, 600_000)));
    const seconds = (performance.now() - started) / 1000;
    const workerCpu = totalCpuMicros(half.workerPids) - workersBefore;
    const driver = process.cpuUsage(driverBefore);
    const after = await counters();
    const each = after.map((counts, index) => countersSince(before[index]!, counts));
    const total = (pick: (counts: RedisCounters) => number): number => sum(each.map(pick));
    const cpuMicros = total((counts) => counts.cpuMicros);
    return {
      rootsPerSecond: options.inFlight / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      commandsPerRoot: total((counts) => counts.commands) / options.inFlight,
      cpuMicrosPerRoot: cpuMicros / options.inFlight,
      readsPerRoot: total((counts) => counts.reads) / options.inFlight,
      inKbPerRoot: total((counts) => counts.inBytes) / 1024 / options.inFlight,
      outKbPerRoot: total((counts) => counts.outBytes) / 1024 / options.inFlight,
      busiestCpuShare: Math.max(...each.map((counts) => counts.cpuMicros)) / cpuMicros,
      workerCpuMicrosPerRoot: workerCpu / options.inFlight,
      driverCpuMicrosPerRoot: (driver.user + driver.system) / options.inFlight,
      rss: rssOf(half.workerPids),
    };
  } finally {
    for (const server of servers) server.disconnect();
  }
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** One line of a half's latency, throughput and Redis commands, for the scripts that compare settings. */
export function describeHalf(label: string, figures: HalfFigures, options: MeasureOptions): string {
  return (
    `${label.padEnd(12)} single root (${options.sequential} sequential): p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms; ` +
    `${options.inFlight} in flight: ${figures.rootsPerSecond.toFixed(0)} roots/s, ${figures.commandsPerRoot.toFixed(1)} Redis commands/root`
  );
}

/** Starts a Tierflow half with `env`, measures it, prints its line, and stops it. */
export async function measureTierflow(label: string, env: NodeJS.ProcessEnv, options: MeasureOptions, start: (env: NodeJS.ProcessEnv) => Promise<BenchHalf>): Promise<HalfFigures> {
  const half = await start(env);
  try {
    const figures = await measureHalf(half, options);
    console.log(describeHalf(label, figures, options));
    return figures;
  } finally {
    await half.stop();
  }
}
