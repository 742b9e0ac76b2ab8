import { BeadsStore } from '@tierflow/beads';
import { TierflowError } from '@tierflow/protocol';
import { startRedisServer, uniquePrefix, type RedisServer } from '@tierflow/testing';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobOptions } from './child-jobs.js';
import { connect } from './connection.js';
import type { TierHandler } from './handler.js';
import { buildDelegation } from './messages.js';
import { resolveRuntimeOptions } from './options.js';
import { TierWorker } from './tier-worker.js';

// A pass's Beads writes wait for the MULTI that sends its outcome: they land with it, or not at all.
let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server.stop());

describe("a policy's Beads writes", () => {
  it('land with the outcome of the pass that made them; a pass that ends in a retry writes none', async () => {
    const runtime = resolveRuntimeOptions({ redisUrl: server.url, prefix: uniquePrefix('pass-writes'), retry: { attempts: 2, baseDelayMs: 10, jitter: 0 } });
    const readBack: unknown[] = [];
    const flaky: TierHandler = {
      tier: 'SPECIALIZED_FLEET',
      start: async (context) => {
        const { id } = context.assignment;
        await context.beads.set(`execution/outputs/${id}`, { attempt: context.attempt });
        await context.beads.set(`execution/logs/${id}/attempt-${context.attempt}`, 'ran');
        // The pass reads its own writes before they are sent.
        readBack.push(await context.beads.get(`execution/outputs/${id}`));
        if (context.attempt === 1) throw TierflowError.retryable('a transient failure after writing');
        return { kind: 'outcome', outcome: { status: 'success', summary: 'done', confidence: 1 } };
      },
    };
    const worker = await TierWorker.start({ handler: flaky, runtime, log: { info: () => undefined, warn: () => undefined } });
    const redis = connect(server.url);
    const eventsRedis = connect(server.url);
    const fleet = new Queue('fleet', { connection: redis, prefix: runtime.prefix });
    const events = new QueueEvents('fleet', { connection: eventsRedis, prefix: runtime.prefix });
    const beads = new BeadsStore(redis, { tier: 'SPECIALIZED_FLEET', prefix: runtime.prefix });
    try {
      await events.waitUntilReady();
      const message = buildDelegation('ROUTING_DISPATCHER', 'writes-1', null, { task_type: 'general', objective: 'x' }, Date.now());
      const job = await fleet.add('general', message, jobOptions(message.id, 2, runtime));
      const outcome = (await job.waitUntilFinished(events, 10_000)) as { payload: Record<string, unknown> };
      expect(outcome.payload.status).toBe('success');
      expect(readBack).toEqual([{ attempt: 1 }, { attempt: 2 }]);
      expect(await beads.get('execution/outputs/writes-1')).toEqual({ attempt: 2 });
      expect(await beads.get('execution/logs/writes-1/attempt-2')).toBe('ran');
      expect(await beads.get('execution/logs/writes-1/attempt-1')).toBeNull();
    } finally {
      await events.close();
      await fleet.close();
      await worker.close();
      redis.disconnect();
      eventsRedis.disconnect();
    }
  });
});
