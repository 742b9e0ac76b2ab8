// The Fleet against a model server's own limit: roots whose leaves each make one model call to an
// OpenAI-compatible server in this process that answers after a fixed latency L, with about C
// leaves kept in flight. Nothing but the server's latency bounds that: C / L leaves a second.
// The bench reports leaves a second against that limit (counted at the server), the Fleet's
// resident memory per leaf in flight, and Redis and worker CPU per leaf.
//   npm run bench:fleet -- [--latency-ms 2000] [--in-flight 32,256,2000] [--leaves 50] [--seconds 20] [--concurrency 32]
// `--concurrency` is each worker's (TIERFLOW_CONCURRENCY): today a leaf holds a Fleet job slot for
// the whole of its call, so a Fleet keeps at most that many calls open.
import { parseArgs } from 'node:util';
import type { ObjectiveFile } from '@tierflow/runtime';
import { FakeOpenAiServer, redisClient } from '@tierflow/testing';
import { startDeployment } from '../support/deployment.js';
import { totalCpuMicros } from './process-cpu.js';
import { countersSince, redisCounters } from './redis-stats.js';
import { rssOf } from './rss.js';

const { values: args } = parseArgs({
  options: {
    'latency-ms': { type: 'string', default: '2000' },
    'in-flight': { type: 'string', default: '32,256,2000' },
    leaves: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '32' },
  },
});
const LATENCY_MS = Number(args['latency-ms']);
const IN_FLIGHT = args['in-flight'].split(',').map(Number);
const LEAVES = Number(args.leaves);
const SECONDS = Number(args.seconds);
const CONCURRENCY = Number(args.concurrency);
const MODEL = 'fleet-bench-model';

const objective: ObjectiveFile = {
  objective: 'fleet bench',
  task_data: { plan: { strategy: 'all_success', subtasks: Array.from({ length: LEAVES }, (_, i) => ({ objective: `leaf ${i + 1}`, specialist_hint: MODEL })) } },
};

interface Figures {
  readonly inFlight: number;
  readonly leavesPerSecond: number;
  readonly limit: number;
  readonly serverConcurrency: number;
  readonly rssPerLeafKb: number;
  readonly redisCpuPerLeaf: number;
  readonly workerCpuPerLeaf: number;
  readonly errors: number;
}

async function measure(inFlight: number, server: FakeOpenAiServer): Promise<Figures> {
  const env = { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'bench', OTEL_TRACES_EXPORTER: 'none', TIERFLOW_LOG: 'silent', TIERFLOW_CONCURRENCY: String(CONCURRENCY) };
  const deployment = await startDeployment('bench-fleet', env);
  const fleet = deployment.tiers.children.get('fleet')!.pid!;
  const workers = [...deployment.tiers.children.values()].map((child) => child.pid!);
  const redis = redisClient(deployment.redis.url);
  let errors = 0;
  try {
    // One root first: connections, scripts and the specialist list in place; the Fleet at rest.
    await deployment.client.waitForResult(await deployment.client.enqueue(objective), { timeoutMs: 120_000 });
    const idleRss = rssOf([fleet]).sum;
    const roots = Math.max(1, Math.round(inFlight / LEAVES));
    let stopAt = Infinity;
    const pump = async (): Promise<void> => {
      while (performance.now() < stopAt) {
        const outcome = await deployment.client.waitForResult(await deployment.client.enqueue(objective), { timeoutMs: 600_000 });
        if (outcome.payload.status !== 'success') errors += 1;
      }
    };
    const settle = LATENCY_MS * 3;
    stopAt = performance.now() + settle + SECONDS * 1000;
    const pumps = Array.from({ length: roots }, () => pump());
    // Measured once the pumps have settled into a steady flow.
    await new Promise((resolve) => setTimeout(resolve, settle));
    const calls = server.received;
    const redisBefore = await redisCounters(redis);
    const cpuBefore = totalCpuMicros(workers);
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    const elapsed = (performance.now() - started) / 1000;
    const done = server.received - calls;
    const loadedRss = rssOf([fleet]).sum;
    const redisCpu = countersSince(redisBefore, await redisCounters(redis)).cpuMicros;
    const workerCpu = totalCpuMicros(workers) - cpuBefore;
    await Promise.all(pumps);
    const leavesPerSecond = done / elapsed;
    // Little's law: what the server held open on average.
    const serverConcurrency = (leavesPerSecond * LATENCY_MS) / 1000;
    return {
      inFlight: roots * LEAVES,
      leavesPerSecond,
      limit: (roots * LEAVES) / (LATENCY_MS / 1000),
      serverConcurrency,
      rssPerLeafKb: (loadedRss - idleRss) / 1024 / Math.max(1, serverConcurrency),
      redisCpuPerLeaf: redisCpu / Math.max(1, done),
      workerCpuPerLeaf: workerCpu / Math.max(1, done),
      errors,
    };
  } finally {
    redis.disconnect();
    await deployment.stop();
  }
}

const server = await FakeOpenAiServer.start([MODEL]);
server.latencyMs = LATENCY_MS;
server.keepRequests = false;
console.log(`bench:fleet: leaves call a model server answering in ${LATENCY_MS} ms; ${LEAVES} leaves a root; ${SECONDS} s measured per setting; worker concurrency ${CONCURRENCY}`);
console.log('in flight   leaves/s   limit C/L   share   held open at server   Fleet RSS/leaf   Redis CPU/leaf   worker CPU/leaf   failed roots');
try {
  for (const inFlight of IN_FLIGHT) {
    const f = await measure(inFlight, server);
    console.log(
      `${String(f.inFlight).padStart(9)}   ${f.leavesPerSecond.toFixed(1).padStart(8)}   ${f.limit.toFixed(1).padStart(9)}   ${((f.leavesPerSecond / f.limit) * 100).toFixed(0).padStart(4)} %   ` +
        `${f.serverConcurrency.toFixed(0).padStart(19)}   ${f.rssPerLeafKb.toFixed(0).padStart(11)} KB   ${f.redisCpuPerLeaf.toFixed(0).padStart(11)} µs   ${f.workerCpuPerLeaf.toFixed(0).padStart(12)} µs   ${String(f.errors).padStart(12)}`,
    );
  }
} finally {
  await server.close();
}
