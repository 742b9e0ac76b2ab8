// One tier of the plain-BullMQ shape as its own process: node test/dist/bench/bullmq-worker.js <tier>
// with REDIS_URL and BENCH_PREFIX set; prints "ready" once it takes jobs, stops on SIGTERM.
// BENCH_FAN_OUT sets the Dispatcher's fan-out; BENCH_MODEL_URL (an OpenAI-compatible base URL) has
// each leaf make one chat completion there, over a keep-alive `node:http` agent, the least any
// client could do: the floor bench:fleet measures Tierflow's Fleet against.
import { DEFAULT_CONCURRENCY } from '@tierflow/runtime/admin';
import { Queue, WaitingChildrenError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { BELOW, FAN_OUT, SHAPE_TIERS, shapeJobOptions, type ShapeData, type ShapeTier } from './bullmq-jobs.js';
import { plainModelCall } from './plain-model-call.js';

const tier = process.argv[2] as ShapeTier;
if (!SHAPE_TIERS.includes(tier)) throw new Error(`unknown tier ${process.argv[2]}`);
const url = process.env.REDIS_URL!;
const prefix = process.env.BENCH_PREFIX!;
const below = BELOW[tier];
const fanOut = tier === 'dispatcher' && process.env.BENCH_FAN_OUT ? Number(process.env.BENCH_FAN_OUT) : FAN_OUT[tier];
const modelUrl = process.env.BENCH_MODEL_URL;

const connect = (): Redis => new Redis(url, { maxRetriesPerRequest: null });
const lower = below ? new Queue<ShapeData>(below, { connection: connect(), prefix }) : null;

async function run(job: Job<ShapeData>, token?: string): Promise<unknown> {
  if (lower === null || below === null) return modelUrl ? { ok: true, index: job.data.index, answer: await plainModelCall(modelUrl, job.data.index) } : { ok: true, index: job.data.index };
  if (job.data.step !== 'waiting') {
    const parent = { id: job.id!, queue: job.queueQualifiedName };
    // Child ids derive from the parent's, so a retried first pass adds nothing twice.
    const children = Array.from({ length: fanOut }, (_, index) => ({
      name: below,
      data: { index },
      opts: { ...shapeJobOptions(`${job.id}.${index}`), parent, ignoreDependencyOnFailure: true },
    }));
    if (children.length === 1) await lower.add(children[0]!.name, children[0]!.data, children[0]!.opts);
    else await lower.addBulk(children);
    await job.updateData({ ...job.data, step: 'waiting' });
    if (await job.moveToWaitingChildren(token!)) throw new WaitingChildrenError();
  }
  return { ok: true, children: Object.values(await job.getChildrenValues()) };
}

// Tierflow's workers run DEFAULT_CONCURRENCY jobs at once unless told; so do these, so the halves compare like for like.
const worker = new Worker<ShapeData>(tier, run, { connection: connect(), prefix, concurrency: Number(process.env.BENCH_CONCURRENCY ?? DEFAULT_CONCURRENCY) });
worker.on('error', (error) => process.stderr.write(`${tier} worker error: ${error.message}\n`));
await worker.waitUntilReady();
process.stdout.write('ready\n');

process.once('SIGTERM', () => {
  void (async () => {
    await worker.close();
    await lower?.close();
    process.exit(0);
  })();
});
