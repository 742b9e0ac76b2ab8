import { redisClient } from '@tierflow/testing';
import type { BenchHalf } from './bench-half.js';
import { backgroundCpuMicros, totalCpuMicros } from './process-cpu.js';
import { countersSince, redisCounters, type RedisCounters } from './redis-stats.js';
import { rssOf, type RssFigures } from './rss.js';
import { percentile } from './shape.js';

export interface HalfFigures {
  readonly rootsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly commandsPerRoot: number;
  /** The broker's CPU per root: Redis's (INFO), or that of the processes doing its work in its place (BenchHalf.brokerPids). */
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
  /** The part of it spent off the workers' main threads: V8's optimizing compiler and its collector's helpers. */
  readonly backgroundCpuMicrosPerRoot: number;
  /** Roots a second of each warm-up batch in flight, in order: they level off as the workers' code settles. */
  readonly warmUpRootsPerSecond: readonly number[];
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
  /**
   * Then batches of `inFlight` roots at once, unmeasured: code that only many jobs at once run
   * hot (a busy worker's paths) is compiled by V8's optimizing compiler only then
   * ({@link WARM_UP_BATCHES}). 0 for none.
   */
  readonly warmUpBatches?: number;
  readonly sequential: number;
  readonly inFlight: number;
}

/** Enough roots, one at a time, to span a few seconds and the tracing exporter's first batches. */
export const WARM_UP_ROOTS = 200;

/**
 * Batches in flight before measuring. Without them the measured batch was the workers' first
 * under load: Tierflow's workers spent as much CPU compiling (off the main thread) as running
 * jobs in it, and ran at about two thirds of their later pace; BullMQ's, with less code, settled
 * after one. Three batches of 1,000 settle both (test/bench/RESULTS.md, 2026-11-28, night).
 */
export const WARM_UP_BATCHES = 3;

/** Runs one root and waits for it. */
async function runOne(half: BenchHalf): Promise<void> {
  await half.finished(await half.enqueue(), 30_000);
}

/** Enqueues `inFlight` roots at once and waits for them all; answers their roots a second. */
export async function runInFlight(half: BenchHalf, inFlight: number): Promise<number> {
  const started = performance.now();
  const ids = await Promise.all(Array.from({ length: inFlight }, () => half.enqueue()));
  await Promise.all(ids.map((id) => half.finished(id, 600_000)));
  return inFlight / ((performance.now() - started) / 1000);
}

/**
 * Warms a half up as {@link MeasureOptions} says (connections, script caches, the workers'
 * compiled code): roots one at a time, then batches in flight; answers each batch's roots a second.
 */
export async function warmUp(half: BenchHalf, options: Pick<MeasureOptions, 'warmUp' | 'warmUpBatches' | 'inFlight'>): Promise<number[]> {
  for (let i = 0; i < options.warmUp; i++) await runOne(half);
  const rates: number[] = [];
  for (let i = 0; i < (options.warmUpBatches ?? 0); i++) rates.push(await runInFlight(half, options.inFlight));
  return rates;
}

/** Sequential single-root latency, then throughput with `inFlight` roots enqueued at once, after a warm-up. */
export async function measureHalf(half: BenchHalf, options: MeasureOptions): Promise<HalfFigures> {
  const warmUpRootsPerSecond = await warmUp(half, options);
  const latencies: number[] = [];
  for (let i = 0; i < options.sequential; i++) {
    const started = performance.now();
    await runOne(half);
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);

  const servers = half.redisUrls.map((url) => redisClient(url));
  const counters = (): Promise<RedisCounters[]> => Promise.all(servers.map((server) => redisCounters(server)));
  try {
    const before = await counters();
    const workersBefore = totalCpuMicros(half.workerPids);
    const backgroundBefore = backgroundCpuMicros(half.workerPids);
    const brokerBefore = totalCpuMicros(half.brokerPids ?? []);
    const driverBefore = process.cpuUsage();
    const rootsPerSecond = await runInFlight(half, options.inFlight);
    const workerCpu = totalCpuMicros(half.workerPids) - workersBefore;
    const backgroundCpu = backgroundCpuMicros(half.workerPids) - backgroundBefore;
    const brokerCpu = totalCpuMicros(half.brokerPids ?? []) - brokerBefore;
    const driver = process.cpuUsage(driverBefore);
    const after = await counters();
    const each = after.map((counts, index) => countersSince(before[index]!, counts));
    const total = (pick: (counts: RedisCounters) => number): number => sum(each.map(pick));
    const cpuMicros = total((counts) => counts.cpuMicros) + brokerCpu;
    return {
      rootsPerSecond,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      commandsPerRoot: total((counts) => counts.commands) / options.inFlight,
      cpuMicrosPerRoot: cpuMicros / options.inFlight,
      readsPerRoot: total((counts) => counts.reads) / options.inFlight,
      inKbPerRoot: total((counts) => counts.inBytes) / 1024 / options.inFlight,
      outKbPerRoot: total((counts) => counts.outBytes) / 1024 / options.inFlight,
      busiestCpuShare: each.length > 0 ? Math.max(...each.map((counts) => counts.cpuMicros)) / cpuMicros : 1,
      workerCpuMicrosPerRoot: workerCpu / options.inFlight,
      backgroundCpuMicrosPerRoot: backgroundCpu / options.inFlight,
      warmUpRootsPerSecond,
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
