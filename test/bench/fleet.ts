// The Fleet against a model server's own limit: roots whose leaves each make one model call to an
// OpenAI-compatible server in this process that answers after a fixed latency L, with about C
// leaves kept in flight. Nothing but the server's latency bounds that: C / L leaves a second.
// The bench reports leaves a second against that limit (counted at the server), the Fleet's
// resident memory per leaf in flight, and Redis and worker CPU per leaf.
//   npm run bench:fleet -- [--latency-ms 2000] [--in-flight 32,256,2000] [--leaves 50] [--seconds 20] [--concurrency 32] [--rpm N] [--tpm N] [--model-concurrent N]
// `--concurrency` is each worker's (TIERFLOW_CONCURRENCY): a leaf holds a Fleet job slot for the
// whole of its call, so a Fleet keeps at most that many calls open.
// `--rpm` and `--tpm` set the model's shared limits (models.limits in a project file) and have the
// server enforce a quarter more, as a provider would with a 429: the limit then bounds leaves/s too,
// and the bench counts the 429s that reached the server. Each answer reports 400 tokens (300 in,
// 100 out) against a max_tokens of 200. With an rpm or tpm limit the flow settles for 65 s first, so the minute
// window is full when the measurement starts, and a whole minute is measured (the window lets a
// burst through after a quiet spell, so a shorter stretch may see more or less than the limit).
// `--model-concurrent` sets the model's shared `concurrent` limit: N calls in flight at most across
// every process, so N / L bounds leaves/s; how near the flow comes shows how soon a freed slot is taken.
// `--floor` runs the same roots on plain BullMQ instead (bullmq-worker.ts: four queues, one process
// each, each leaf one plain keep-alive HTTP call): what the queue and the call cost with nothing of
// Tierflow's, the most any design on BullMQ could get from these cores.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ObjectiveFile } from '@tierflow/runtime';
import { FakeOpenAiServer, redisClient } from '@tierflow/testing';
import { startDeployment } from '../support/deployment.js';
import { startBullmqShape } from './bullmq-shape.js';
import { totalCpuMicros } from './process-cpu.js';
import { countersSince, redisCounters } from './redis-stats.js';
import { rssOf } from './rss.js';

const { values: args } = parseArgs({
  options: {
    'latency-ms': { type: 'string', default: '2000' },
    'in-flight': { type: 'string', default: '32,256,2000' },
    leaves: { type: 'string', default: '50' },
    seconds: { type: 'string' },
    concurrency: { type: 'string', default: '32' },
    rpm: { type: 'string' },
    tpm: { type: 'string' },
    'model-concurrent': { type: 'string' },
    floor: { type: 'boolean', default: false },
  },
});
const LATENCY_MS = Number(args['latency-ms']);
const IN_FLIGHT = args['in-flight'].split(',').map(Number);
const LEAVES = Number(args.leaves);
const CONCURRENCY = Number(args.concurrency);
const MODEL = 'fleet-bench-model';
const RPM = args.rpm === undefined ? null : Number(args.rpm);
const TPM = args.tpm === undefined ? null : Number(args.tpm);
const FLOOR = args.floor;
const MODEL_CONCURRENT = args['model-concurrent'] === undefined ? null : Number(args['model-concurrent']);
const USAGE = { prompt_tokens: 300, completion_tokens: 100 };
const TOKENS_PER_CALL = USAGE.prompt_tokens + USAGE.completion_tokens;
// A sliding window lets a burst through after a quiet spell: with a limit, a whole minute is measured by default.
const SECONDS = Number(args.seconds ?? (RPM === null && TPM === null ? 20 : 60));
/** How much more than the shared limits the server allows before it answers 429. */
const SERVER_MARGIN = 1.25;

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
  readonly fleetCpuPerLeaf: number;
  readonly errors: number;
  readonly refusedByServer: number;
  readonly connectionsPerLeaf: number;
}

/** A project file naming the bench's model as an LLM specialist, with its shared limits; null with none. */
async function limitsConfig(dir: string, server: FakeOpenAiServer): Promise<string | null> {
  if (RPM === null && TPM === null && MODEL_CONCURRENT === null) return null;
  const limits = { ...(RPM === null ? {} : { rpm: RPM }), ...(TPM === null ? {} : { tpm: TPM }), ...(MODEL_CONCURRENT === null ? {} : { concurrent: MODEL_CONCURRENT }) };
  const file = join(dir, 'tierflow.config.json');
  await writeFile(file, JSON.stringify({ specialists: [{ kind: 'llm', name: MODEL, baseURL: server.baseURL, maxTokens: 200 }], models: { limits: { [MODEL]: limits } } }));
  return file;
}

/** What a measurement runs roots on: Tierflow's four tiers, or the plain-BullMQ floor. */
interface Flow {
  readonly redisUrl: string;
  readonly fleetPid: number;
  readonly workerPids: readonly number[];
  /** Runs one root to its end; true when it succeeded. */
  root(): Promise<boolean>;
  stop(): Promise<void>;
}

async function tierflowFlow(server: FakeOpenAiServer, config: string | null): Promise<Flow> {
  const env = {
    OPENAI_BASE_URL: server.baseURL,
    OPENAI_API_KEY: 'bench',
    OTEL_TRACES_EXPORTER: 'none',
    TIERFLOW_LOG: 'silent',
    TIERFLOW_CONCURRENCY: String(CONCURRENCY),
    ...(config ? { TIERFLOW_CONFIG: config } : {}),
  };
  const deployment = await startDeployment('bench-fleet', env);
  return {
    redisUrl: deployment.redis.url,
    fleetPid: deployment.tiers.children.get('fleet')!.pid!,
    workerPids: [...deployment.tiers.children.values()].map((child) => child.pid!),
    async root() {
      const outcome = await deployment.client.waitForResult(await deployment.client.enqueue(objective), { timeoutMs: 600_000 });
      return outcome.payload.status === 'success';
    },
    stop: () => deployment.stop(),
  };
}

async function floorFlow(server: FakeOpenAiServer): Promise<Flow> {
  const half = await startBullmqShape({ BENCH_FAN_OUT: String(LEAVES), BENCH_MODEL_URL: server.baseURL, BENCH_CONCURRENCY: String(CONCURRENCY) });
  return {
    redisUrl: half.redisUrls[0]!,
    fleetPid: half.workerPids[3]!,
    workerPids: half.workerPids,
    async root() {
      return half.finished(await half.enqueue(), 600_000).then(
        () => true,
        () => false,
      );
    },
    stop: () => half.stop(),
  };
}

async function measure(inFlight: number, server: FakeOpenAiServer, config: string | null): Promise<Figures> {
  const flow = FLOOR ? await floorFlow(server) : await tierflowFlow(server, config);
  const fleet = flow.fleetPid;
  const workers = flow.workerPids;
  const redis = redisClient(flow.redisUrl);
  let errors = 0;
  try {
    // One root first: connections, scripts and the specialist list in place; the Fleet at rest.
    await flow.root();
    const idleRss = rssOf([fleet]).sum;
    const roots = Math.max(1, Math.round(inFlight / LEAVES));
    let stopAt = Infinity;
    const pump = async (): Promise<void> => {
      while (performance.now() < stopAt) {
        if (!(await flow.root())) errors += 1;
      }
    };
    const settle = RPM !== null || TPM !== null ? 65_000 : LATENCY_MS * 3;
    stopAt = performance.now() + settle + SECONDS * 1000;
    const pumps = Array.from({ length: roots }, () => pump());
    // Measured once the pumps have settled into a steady flow.
    await new Promise((resolve) => setTimeout(resolve, settle));
    const calls = server.received;
    const refusedBefore = server.overLimit;
    const connectionsBefore = server.connections;
    const redisBefore = await redisCounters(redis);
    const cpuBefore = totalCpuMicros(workers);
    const fleetBefore = totalCpuMicros([fleet]);
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    const elapsed = (performance.now() - started) / 1000;
    const refused = server.overLimit - refusedBefore;
    const connections = server.connections - connectionsBefore;
    const done = server.received - calls - refused;
    const loadedRss = rssOf([fleet]).sum;
    const redisCpu = countersSince(redisBefore, await redisCounters(redis)).cpuMicros;
    const workerCpu = totalCpuMicros(workers) - cpuBefore;
    const fleetCpu = totalCpuMicros([fleet]) - fleetBefore;
    await Promise.all(pumps);
    const leavesPerSecond = done / elapsed;
    // Little's law: what the server held open on average.
    const serverConcurrency = (leavesPerSecond * LATENCY_MS) / 1000;
    return {
      inFlight: roots * LEAVES,
      leavesPerSecond,
      limit: Math.min((Math.min(roots * LEAVES, MODEL_CONCURRENT ?? Infinity) * 1000) / LATENCY_MS, RPM === null ? Infinity : RPM / 60, TPM === null ? Infinity : TPM / 60 / TOKENS_PER_CALL),
      serverConcurrency,
      rssPerLeafKb: (loadedRss - idleRss) / 1024 / Math.max(1, serverConcurrency),
      redisCpuPerLeaf: redisCpu / Math.max(1, done),
      workerCpuPerLeaf: workerCpu / Math.max(1, done),
      fleetCpuPerLeaf: fleetCpu / Math.max(1, done),
      errors,
      refusedByServer: refused,
      connectionsPerLeaf: connections / Math.max(1, done),
    };
  } finally {
    redis.disconnect();
    await flow.stop();
  }
}

const server = await FakeOpenAiServer.start([MODEL]);
server.latencyMs = LATENCY_MS;
server.keepRequests = false;
server.usage = USAGE;
if (RPM !== null) server.rateLimit = { limit: Math.floor(RPM * SERVER_MARGIN), windowMs: 60_000 };
if (TPM !== null) server.tokenLimit = { limit: Math.floor(TPM * SERVER_MARGIN), windowMs: 60_000 };
const dir = await mkdtemp(join(tmpdir(), 'tierflow-bench-fleet-'));
const config = await limitsConfig(dir, server);
const limited = [
  RPM === null ? '' : `rpm ${RPM}`,
  TPM === null ? '' : `tpm ${TPM} (${(TPM / 60 / TOKENS_PER_CALL).toFixed(1)} calls/s of ${TOKENS_PER_CALL} tokens)`,
  MODEL_CONCURRENT === null ? '' : `concurrent ${MODEL_CONCURRENT}`,
]
  .filter(Boolean)
  .join(', ');
console.log(
  `bench:fleet${FLOOR ? ' (the floor: plain BullMQ, plain HTTP)' : ''}: leaves call a model server answering in ${LATENCY_MS} ms; ${LEAVES} leaves a root; ${SECONDS} s measured per setting; worker concurrency ${CONCURRENCY}` +
    (limited ? `; shared limits ${limited}, the server allows ${SERVER_MARGIN} ×` : ''),
);
console.log('in flight   leaves/s   limit   share   held open at server   Fleet RSS/leaf   Redis CPU/leaf   worker CPU/leaf   of it Fleet   failed roots   429s   connections/leaf');
try {
  for (const inFlight of IN_FLIGHT) {
    const f = await measure(inFlight, server, config);
    console.log(
      `${String(f.inFlight).padStart(9)}   ${f.leavesPerSecond.toFixed(1).padStart(8)}   ${f.limit.toFixed(1).padStart(5)}   ${((f.leavesPerSecond / f.limit) * 100).toFixed(0).padStart(4)} %   ` +
        `${f.serverConcurrency.toFixed(0).padStart(19)}   ${f.rssPerLeafKb.toFixed(0).padStart(11)} KB   ${f.redisCpuPerLeaf.toFixed(0).padStart(11)} µs   ${f.workerCpuPerLeaf.toFixed(0).padStart(12)} µs   ${f.fleetCpuPerLeaf.toFixed(0).padStart(8)} µs   ${String(f.errors).padStart(12)}   ${String(f.refusedByServer).padStart(4)}   ${f.connectionsPerLeaf.toFixed(3).padStart(16)}`,
    );
  }
} finally {
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
