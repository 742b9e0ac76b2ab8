import { redisClient, uniquePrefix, waitFor } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { FlowProducer, Queue, Worker, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { childValueKey, lockKey, parseChildValues, processedKey } from './bullmq-keys.js';

describe('BullMQ keys, against a real worker', () => {
  const db = usePrivateRedis();

  it('a running job holds its lock token under lockKey, and a parent reads its children under processedKey', async () => {
    const prefix = uniquePrefix('keys');
    const seen: { key: string | null; token: string | undefined }[] = [];
    let parent: Job | undefined;
    const [workerRedis, flowRedis] = [redisClient(db.server.url), redisClient(db.server.url)];
    const worker = new Worker(
      'q',
      async (job, token) => {
        if (job.name === 'child') {
          seen.push({ key: await db.redis.get(lockKey(job)), token });
          return { answer: 42 };
        }
        parent = job;
        return null;
      },
      { connection: workerRedis, prefix },
    );
    const flows = new FlowProducer({ connection: flowRedis, prefix });
    try {
      const flow = await flows.add({ name: 'parent', queueName: 'q', children: [{ name: 'child', queueName: 'q' }] });
      await waitFor(() => parent !== undefined, { description: 'the parent to run' });
      expect(seen).toHaveLength(1);
      expect(seen[0]!.key).toBe(seen[0]!.token);
      const values = parseChildValues(await db.redis.hgetall(processedKey(parent!)));
      expect(Object.values(values)).toEqual([{ answer: 42 }]);
      expect(values).toEqual(await parent!.getChildrenValues());
      const queue = new Queue('q', { connection: db.redis, prefix });
      expect(Object.keys(values)).toEqual([childValueKey(queue, flow.children![0]!.job.id!)]);
      await queue.close();
    } finally {
      await worker.close();
      await flows.close();
      await new Queue('q', { connection: db.redis, prefix }).close();
      workerRedis.disconnect();
      flowRedis.disconnect();
    }
  });
});

describe('parseChildValues', () => {
  it('keeps a value that is not JSON as its text instead of throwing', () => {
    expect(parseChildValues({ a: '{"x":1}', b: '{"x":', c: 'null' })).toEqual({ a: { x: 1 }, b: '{"x":', c: null });
  });
});
