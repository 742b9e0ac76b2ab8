import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { redisClient, startRedisServer, uniquePrefix, waitFor, type RedisServerOptions } from '@tierflow/testing';
import { Queue, QueueEvents } from 'bullmq';
import { awaitTracked, type BenchHalf } from './bench-half.js';
import { SHAPE_TIERS, shapeJobOptions, type ShapeData } from './bullmq-jobs.js';

const WORKER = fileURLToPath(new URL('./bullmq-worker.js', import.meta.url));

/** The plain-BullMQ half: a private Redis (run as `redisOptions` say) and one worker process per queue, with `env` over this process's environment. */
export async function startBullmqShape(env: NodeJS.ProcessEnv = {}, redisOptions: RedisServerOptions = {}): Promise<BenchHalf> {
  const redis = await startRedisServer(redisOptions);
  const prefix = uniquePrefix('bench-bullmq');
  const logs: string[] = [];
  const ready = new Set<string>();
  const children: ChildProcess[] = SHAPE_TIERS.map((tier) => {
    const child = spawn(process.execPath, [WORKER, tier], { env: { ...process.env, ...env, REDIS_URL: redis.url, BENCH_PREFIX: prefix }, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        logs.push(`${tier} | ${line}`);
        if (line === 'ready') ready.add(tier);
      });
    }
    return child;
  });
  const exited = children.map((child) => new Promise<void>((resolve) => child.once('exit', () => resolve())));
  const connection = redisClient(redis.url);
  const eventsConnection = redisClient(redis.url);
  const monitor = new Queue<ShapeData>('monitor', { connection, prefix });
  // The server is fresh, so reading the event stream from its start misses nothing.
  const events = new QueueEvents('monitor', { connection: eventsConnection, prefix, lastEventId: '0' });
  const waiters = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  events.on('completed', ({ jobId }) => waiters.get(jobId)?.resolve());
  events.on('failed', ({ jobId, failedReason }) => waiters.get(jobId)?.reject(new Error(`root ${jobId} failed: ${failedReason}`)));
  const done = new Map<string, Promise<void>>();

  const stop = async (): Promise<void> => {
    await events.close();
    await monitor.close();
    connection.disconnect();
    eventsConnection.disconnect();
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.all(exited);
    await redis.stop();
  };
  try {
    await events.waitUntilReady();
    await waitFor(() => ready.size === SHAPE_TIERS.length || children.some((child) => child.exitCode !== null), { timeoutMs: 20_000, description: 'four BullMQ workers ready' });
    if (ready.size < SHAPE_TIERS.length) throw new Error(`a BullMQ worker exited:\n${logs.join('\n')}`);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    redisUrls: [redis.url],
    workerPids: children.map((child) => child.pid!),
    async enqueue() {
      const id = randomUUID();
      // Listen before adding: the id is ours, so no completion can slip by.
      const finished = new Promise<void>((resolve, reject) => {
        waiters.set(id, { resolve, reject });
      }).finally(() => waiters.delete(id));
      finished.catch(() => undefined);
      done.set(id, finished);
      await monitor.add('root', { index: 0 }, shapeJobOptions(id));
      return id;
    },
    finished: (id, timeoutMs) => awaitTracked(done, id, timeoutMs),
    stop,
  };
}
