import { startRedisServer, uniquePrefix, type RedisServer } from '@tierflow/testing';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobOptions } from './child-jobs.js';
import { connect } from './connection.js';
import type { TierHandler } from './handler.js';
import { buildDelegation } from './messages.js';
import { resolveRuntimeOptions } from './options.js';
import { TierWorker } from './tier-worker.js';

// Seed 002's nested fan-out guard: the lowest tier executes, it never delegates.
let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server.stop());

describe('a Fleet handler that tries to delegate', () => {
  it('is refused: the outcome is failed, not retried, and nothing is delegated', async () => {
    const runtime = resolveRuntimeOptions({ redisUrl: server.url, prefix: uniquePrefix('guard') });
    const nested: TierHandler = {
      tier: 'SPECIALIZED_FLEET',
      start: () => Promise.resolve({ kind: 'delegate', strategy: 'all_success', children: [{ task_type: 'deeper', objective: 'fan out again' }] }),
    };
    const worker = await TierWorker.start({ handler: nested, runtime, log: { info: () => undefined, warn: () => undefined } });
    const redis = connect(server.url);
    const eventsRedis = connect(server.url);
    const fleet = new Queue('fleet', { connection: redis, prefix: runtime.prefix });
    const events = new QueueEvents('fleet', { connection: eventsRedis, prefix: runtime.prefix });
    try {
      await events.waitUntilReady();
      const message = buildDelegation('ROUTING_DISPATCHER', 'nested-1', null, { task_type: 'general', objective: 'x' }, Date.now());
      const job = await fleet.add('general', message, jobOptions(message.id, 2, runtime));
      const outcome = (await job.waitUntilFinished(events, 10_000)) as { payload: Record<string, unknown> };
      expect(outcome.payload).toMatchObject({ status: 'failed', recoverable: false });
      expect(String(outcome.payload.error_detail)).toMatch(/cannot delegate/);
      expect((await fleet.getJob(message.id))?.attemptsMade).toBe(1);
      expect(await redis.keys(`${runtime.prefix}:*:nested-1.0-0`)).toEqual([]);
    } finally {
      await events.close();
      await fleet.close();
      await worker.close();
      redis.disconnect();
      eventsRedis.disconnect();
    }
  });
});
