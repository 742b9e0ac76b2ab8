// What metrics cost (docs/operations.md#prometheus-and-grafana): the four tiers with
// TIERFLOW_METRICS=off, on (the deployment's store in Redis, no other exporter), and on with
// OTEL_METRICS_EXPORTER=prometheus (each worker serving its own endpoint, which this process
// scrapes every second as a Prometheus would), side by side, each round starting all three in
// rotating order on private Redis servers, with roots of the bench's shape. The target: on within
// 3% of off in roots/s. Then the memory check: one deployment with metrics on runs `memory-roots`
// roots in batches, and each worker's RSS is printed after the first batch and at the end.
//   npm run build && node test/dist/bench/metrics.js [rounds=3] [in-flight=1000] [sequential=100] [memory-roots=10000]
import { readFileSync } from 'node:fs';
import type { TierSlug } from '@tierflow/protocol';
import { findFreePort } from '@tierflow/testing';
import { startDeployment, type Deployment } from '../support/deployment.js';
import type { BenchHalf } from './bench-half.js';
import { figuresTable } from './figures-table.js';
import { measureHalf, runInFlight, WARM_UP_BATCHES, WARM_UP_ROOTS, type HalfFigures } from './measure.js';
import { benchObjective, median } from './shape.js';

const [rounds = 3, inFlight = 1000, sequential = 100, memoryRoots = 10_000] = process.argv.slice(2).map(Number);
const TIERS: readonly TierSlug[] = ['monitor', 'architect', 'dispatcher', 'fleet'];

interface Mode {
  readonly name: string;
  readonly env: NodeJS.ProcessEnv;
  /** Each worker serves its metrics on a port of its own (OTEL_EXPORTER_PROMETHEUS_PORT), scraped every second. */
  readonly prometheus: boolean;
}
const MODES: readonly Mode[] = [
  { name: 'off', env: { TIERFLOW_METRICS: 'off' }, prometheus: false },
  { name: 'on', env: { TIERFLOW_METRICS: 'on', OTEL_METRICS_EXPORTER: 'none' }, prometheus: false },
  { name: 'on+prom', env: { TIERFLOW_METRICS: 'on', OTEL_METRICS_EXPORTER: 'prometheus' }, prometheus: true },
];

/** Scrapes `urls` every second until stopped; counts the answers and their bytes. */
function scrapeEverySecond(urls: readonly string[]): { stop(): { answered: number; failed: number; bytes: number } } {
  const tally = { answered: 0, failed: 0, bytes: 0 };
  const timer = setInterval(() => {
    for (const url of urls) {
      fetch(url, { signal: AbortSignal.timeout(1_000) })
        .then(async (response) => {
          const body = await response.text();
          if (!response.ok) throw new Error(String(response.status));
          tally.answered += 1;
          tally.bytes += body.length;
        })
        .catch(() => (tally.failed += 1));
    }
  }, 1_000);
  return {
    stop: () => {
      clearInterval(timer);
      return tally;
    },
  };
}

interface MetricsHalf extends BenchHalf {
  readonly deployment: Deployment;
  /** What the scraper saw, once stopped (prometheus mode only). */
  scrapes(): string;
}

async function startHalf(mode: Mode): Promise<MetricsHalf> {
  const ports = mode.prometheus ? await Promise.all(TIERS.map(() => findFreePort())) : [];
  const tierEnv = mode.prometheus ? Object.fromEntries(TIERS.map((tier, index) => [tier, { OTEL_EXPORTER_PROMETHEUS_PORT: String(ports[index]) }])) : {};
  const deployment = await startDeployment('bench-metrics', { TIERFLOW_LOG: 'silent', ...mode.env }, { tierEnv });
  const scraper = mode.prometheus ? scrapeEverySecond(ports.map((port) => `http://127.0.0.1:${port}/metrics`)) : null;
  let seen = '';
  return {
    deployment,
    redisUrls: [deployment.redis.url],
    workerPids: [...deployment.tiers.children.values()].map((child) => child.pid!),
    enqueue: () => deployment.client.enqueue(benchObjective),
    async finished(id, timeoutMs) {
      const outcome = await deployment.client.waitForResult(id, { timeoutMs });
      if (outcome.payload.status !== 'success') throw new Error(`root ${id} ended ${outcome.payload.status}`);
    },
    scrapes: () => seen,
    async stop() {
      if (scraper) {
        const { answered, failed, bytes } = scraper.stop();
        seen = `, scrapes: ${answered} answered (${answered ? (bytes / answered / 1024).toFixed(1) : 0} KiB each), ${failed} failed`;
      }
      await deployment.stop();
    },
  };
}

const results: HalfFigures[][] = MODES.map(() => []);
for (let round = 0; round < rounds; round++) {
  for (const index of MODES.map((_, offset) => (offset + round) % MODES.length)) {
    const mode = MODES[index]!;
    const half = await startHalf(mode);
    let figures: HalfFigures;
    try {
      figures = await measureHalf(half, { warmUp: WARM_UP_ROOTS, warmUpBatches: WARM_UP_BATCHES, sequential, inFlight });
    } finally {
      await half.stop();
    }
    results[index]!.push(figures);
    console.log(
      `round ${round + 1} ${mode.name.padEnd(8)} ${figures.rootsPerSecond.toFixed(0)} roots/s, p50 ${figures.p50.toFixed(1)} ms, ` +
        `${figures.workerCpuMicrosPerRoot.toFixed(0)} µs worker CPU/root, ${figures.cpuMicrosPerRoot.toFixed(0)} µs Redis CPU/root${half.scrapes()}`,
    );
  }
}
console.log(`\nmedians of ${rounds} rounds; ${sequential} sequential roots, ${inFlight} in flight; ratios to off`);
for (const index of [1, 2]) {
  for (const line of figuresTable([MODES[0]!.name, MODES[index]!.name], [results[0]!, results[index]!])) console.log(line);
  console.log('');
}
const off = median(results[0]!.map((figures) => figures.rootsPerSecond));
for (const index of [1, 2]) {
  const ratio = median(results[index]!.map((figures) => figures.rootsPerSecond)) / off;
  console.log(`${MODES[index]!.name}: ${(ratio * 100).toFixed(1)}% of off's roots/s (target: at least 97%) ${ratio >= 0.97 ? 'within' : 'OUTSIDE'}`);
}

/** A process's resident memory now, in MiB (Linux). */
function rssMiB(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

// Memory: RSS after a first batch (code compiled, pools filled), then after all of them. Metrics
// with bounded labels hold a fixed set of series however many runs pass, so RSS should level off.
console.log(`\nmemory with metrics on over ${memoryRoots} roots, ${inFlight} in flight at a time`);
const half = await startHalf(MODES[1]!);
try {
  const children = [...half.deployment.tiers.children];
  const batch = Math.min(inFlight, memoryRoots);
  await runInFlight(half, batch);
  const first = children.map(([, child]) => rssMiB(child.pid!));
  const trajectory: number[][] = children.map(() => []);
  for (let done = batch; done < memoryRoots; done += batch) {
    await runInFlight(half, Math.min(batch, memoryRoots - done));
    children.forEach(([, child], index) => trajectory[index]!.push(rssMiB(child.pid!)));
  }
  children.forEach(([tier, child], index) => {
    const last = rssMiB(child.pid!);
    const steps = trajectory[index]!.map((value) => value.toFixed(0)).join(' ');
    console.log(
      `  ${tier.padEnd(10)} RSS ${first[index]!.toFixed(0)} MiB after ${batch} roots, ${last.toFixed(0)} MiB after ${memoryRoots}: ${(last - first[index]!).toFixed(1)} MiB growth (per batch: ${steps})`,
    );
  });
} finally {
  await half.stop();
}
