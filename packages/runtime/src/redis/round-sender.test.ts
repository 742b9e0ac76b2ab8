import { redisClient, uniquePrefix, waitFor } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { Queue, WaitingChildrenError, Worker, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { lockKey } from './bullmq-keys.js';
import { FencedBatch, LockLostError } from './fenced-batch.js';
import { RoundSender, type ChildJob } from './round-sender.js';

describe('RoundSender, on real BullMQ queues', () => {
  const db = usePrivateRedis();

  /**
   * A parent worker on `parents` whose first pass sends `round(job)` (writes and children on
   * `children`) and parks; its next pass answers with its children's values. Children answer
   * their own name, on a worker of their own.
   */
  function start(prefix: string, round: (job: Job, token: string) => { batch: FencedBatch; children: ChildJob[] }, before?: (job: Job) => Promise<void>) {
    const connections = Array.from({ length: 5 }, () => redisClient(db.server.url));
    const [redis, parentsRedis, childrenRedis, parentQueueRedis, childQueueRedis] = connections as [(typeof connections)[0], ...typeof connections];
    const own = new Queue('parents', { connection: parentQueueRedis!, prefix });
    const lower = new Queue('children', { connection: childQueueRedis!, prefix });
    const sender = new RoundSender(redis, own);
    const sent: { parked: boolean; replies: readonly unknown[] }[] = [];
    const errors: unknown[] = [];
    const parents = new Worker(
      'parents',
      async (job: Job<{ sent?: boolean }>, token) => {
        if (job.data.sent) return job.getChildrenValues();
        await job.updateData({ sent: true });
        const { batch, children } = round(job, token!);
        await before?.(job);
        try {
          sent.push(await sender.send(batch, { jobId: job.id!, key: lockKey(job), token: token! }, lower, children));
        } catch (error) {
          errors.push(error);
          throw error;
        }
        throw new WaitingChildrenError();
      },
      { connection: parentsRedis!, prefix },
    );
    // A refused round leaves BullMQ unable to fail the job it no longer holds: expected here.
    parents.on('error', () => undefined);
    const children = new Worker('children', (job) => Promise.resolve(job.name), { connection: childrenRedis!, prefix });
    return {
      own,
      lower,
      sent,
      errors,
      async stop() {
        await Promise.all([parents.close(), children.close(), own.close(), lower.close()]);
        for (const connection of connections) connection.disconnect();
      },
    };
  }

  const child = (parent: Job, id: string, opts: Partial<ChildJob['opts']> = {}): ChildJob => ({
    name: `child ${id}`,
    data: { id },
    opts: { jobId: id, priority: 3, attempts: 2, parent: { id: parent.id!, queue: parent.queueQualifiedName }, ignoreDependencyOnFailure: true, ...opts },
  });

  it('writes the round, adds the children as Queue.add would, parks the parent, and the parent resumes with their values', async () => {
    const prefix = uniquePrefix('round');
    const run = start(prefix, (job) => ({
      batch: new FencedBatch().set(`${prefix}:state:${job.id}`, 'round 0').get(`${prefix}:mark:${job.id}`),
      children: [child(job, 'c1'), child(job, 'c2', { delay: 200 })],
    }));
    try {
      await db.redis.set(`${prefix}:mark:p`, 'marked');
      const parent = await run.own.add('parent', {}, { jobId: 'p' });
      await waitFor(async () => (await parent.getState()) === 'completed', { timeoutMs: 10_000, description: 'the parent to resume and finish' });
      expect(run.sent).toEqual([{ parked: true, replies: ['OK', 'marked'] }]);
      expect(await db.redis.get(`${prefix}:state:p`)).toBe('round 0');
      expect((await run.own.getJob('p'))?.returnvalue).toEqual({ [`${prefix}:children:c1`]: 'child c1', [`${prefix}:children:c2`]: 'child c2' });
      // The same job Queue.add makes: its name, data, options and parent.
      const added = await run.lower.add('child c3', { id: 'c3' }, { jobId: 'c3', priority: 3, attempts: 2 });
      const [c1, c2, c3] = await Promise.all(['c1', 'c2', 'c3'].map((id) => run.lower.getJob(id)));
      expect(added.id).toBe('c3');
      expect([c1?.name, c1?.data, c1?.opts.priority, c1?.opts.attempts, c1?.parentKey]).toEqual(['child c1', { id: 'c1' }, 3, 2, `${prefix}:parents:p`]);
      expect(c1?.opts).toMatchObject({ ...c3?.opts, jobId: 'c1', ignoreDependencyOnFailure: true });
      expect(c2!.processedOn! - c2!.timestamp).toBeGreaterThanOrEqual(200);
    } finally {
      await run.stop();
    }
  });

  it('does nothing once the pass has lost its lock', async () => {
    const prefix = uniquePrefix('round-lost');
    const run = start(
      prefix,
      (job) => ({ batch: new FencedBatch().set(`${prefix}:state:${job.id}`, 'round 0'), children: [child(job, 'c1')] }),
      async (job) => void (await db.redis.set(lockKey(job), 'someone-else')),
    );
    try {
      await run.own.add('parent', {}, { jobId: 'p' });
      await waitFor(() => run.errors.length > 0, { description: 'the round to be refused' });
      expect(run.errors[0]).toBeInstanceOf(LockLostError);
      expect(await db.redis.exists(`${prefix}:state:p`)).toBe(0);
      expect(await run.lower.getJob('c1')).toBeUndefined();
      expect(await run.own.getWaitingChildrenCount()).toBe(0);
    } finally {
      await run.stop();
    }
  });
});
