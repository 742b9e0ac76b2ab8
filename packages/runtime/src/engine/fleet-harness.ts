// Test support, not exported from the package: a TierWorker for the Fleet in this process, and
// a way to send it one delegation and wait for what it answers.
import type { DelegationMessage } from '@tierflow/protocol';
import { Queue, QueueEvents } from 'bullmq';
import type { RedisClient } from '@tierflow/beads';
import { jobOptions } from './child-jobs.js';
import { connect } from '../redis/connection.js';
import type { TierHandler } from '../policy/handler.js';
import type { RuntimeOptions } from '../config/options.js';
import { TierWorker } from './tier-worker.js';

export interface FleetHarness {
  /** A plain connection to the deployment's Redis, for looking at what was written. */
  readonly redis: RedisClient;
  readonly fleet: Queue;
  /** Adds the delegation as a job on the Fleet's queue and resolves with what the job returns. */
  send(message: DelegationMessage, timeoutMs?: number): Promise<{ payload: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startFleetHarness(handler: TierHandler, runtime: RuntimeOptions): Promise<FleetHarness> {
  const worker = await TierWorker.start({ handler, runtime, log: { info: () => undefined, warn: () => undefined } });
  const redis = connect(runtime);
  const eventsRedis = connect(runtime);
  const fleet = new Queue('fleet', { connection: redis, prefix: runtime.prefix });
  const events = new QueueEvents('fleet', { connection: eventsRedis, prefix: runtime.prefix });
  await events.waitUntilReady();
  return {
    redis,
    fleet,
    async send(message, timeoutMs = 10_000) {
      const job = await fleet.add(message.payload.task_type, message, jobOptions(message.id, 2, runtime));
      return (await job.waitUntilFinished(events, timeoutMs)) as { payload: Record<string, unknown> };
    },
    async close() {
      await events.close();
      await fleet.close();
      await worker.close();
      redis.disconnect();
      eventsRedis.disconnect();
    },
  };
}
