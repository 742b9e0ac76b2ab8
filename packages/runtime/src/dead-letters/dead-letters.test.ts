import { redisClient, uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { Queue, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { DeadLetters } from './dead-letters.js';

describe('dead letters over several cells', () => {
  const db = usePrivateRedis();

  it('are kept in the refusing worker’s cell, read from every cell, and replayed into their own', async () => {
    const base = uniquePrefix('dlq');
    const cells = [base.replace('}', ':0}'), base.replace('}', ':1}')];
    const redis = redisClient(db.server.url);
    const inCell1 = new DeadLetters(redis, cells[1]!);
    const all = new DeadLetters(redis, cells);
    try {
      const refused = { queueName: 'fleet', id: 'r1.0-0.0-0.0-0', data: { bad: true } } as unknown as Job;
      expect(await inCell1.keep(refused, 'not a delegation')).toBe('fleet-r1.0-0.0-0.0-0');
      expect((await all.list()).map((letter) => letter.id)).toEqual(['fleet-r1.0-0.0-0.0-0']);
      expect(await all.get('fleet-r1.0-0.0-0.0-0')).toMatchObject({ queue: 'fleet', reason: 'not a delegation' });
      expect(await all.replay('fleet-r1.0-0.0-0.0-0', { fixed: true })).toEqual({ queue: 'fleet', jobId: 'r1.0-0.0-0.0-0' });
      const fleet = new Queue('fleet', { connection: redis, prefix: cells[1]! });
      try {
        expect((await fleet.getJob('r1.0-0.0-0.0-0'))?.data).toEqual({ fixed: true });
      } finally {
        await fleet.close();
      }
      expect(await all.purge()).toBe(0);
    } finally {
      await Promise.all([inCell1.close(), all.close()]);
      redis.disconnect();
    }
  });
});
