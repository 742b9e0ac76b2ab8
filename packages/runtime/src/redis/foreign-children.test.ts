import { redisClient, uniquePrefix, waitFor } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { FlowProducer, Queue, Worker, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { FencedBatch } from './fenced-batch.js';
import { releaseFromForeignChildren, type ParentRef } from './foreign-children.js';
import { JobFinisher, type Family, type FamilyJob } from './job-finisher.js';

describe('a parent waits only for the children it sent, on real BullMQ jobs', () => {
  const db = usePrivateRedis();

  /**
   * A parent `p` on queue `parents`, parked in waiting-children for its two children on queue
   * `children`, with the set of the children it sent beside it (as a round writes it), and a
   * planted job that names it as its parent, delayed a year: nobody will ever take it up.
   */
  async function parkedParent(prefix: string, withOwnSet = true) {
    const connection = redisClient(db.server.url);
    const flows = new FlowProducer({ connection, prefix });
    await flows.add({
      name: 'parent',
      queueName: 'parents',
      data: {},
      opts: { jobId: 'p' },
      children: ['c0', 'c1'].map((id) => ({ name: 'child', queueName: 'children', data: {}, opts: { jobId: id } })),
    });
    await flows.close();
    const ownChildren = `${prefix}:children:parents:p`;
    if (withOwnSet) await db.redis.sadd(ownChildren, `${prefix}:children:c0`, `${prefix}:children:c1`);
    const children = new Queue('children', { connection, prefix });
    await children.add('planted', {}, { jobId: 'planted', parent: { id: 'p', queue: `${prefix}:parents` }, delay: 365 * 24 * 3600_000 });
    const parent: ParentRef = { key: `${prefix}:parents:p`, ownChildren, queueKey: `${prefix}:parents`, id: 'p' };
    const parents = new Queue('parents', { connection, prefix });
    return {
      parent,
      children,
      state: () => parents.getJobState('p'),
      dependencies: () => db.redis.smembers(`${parent.key}:dependencies`),
      async close() {
        await Promise.all([children.close(), parents.close()]);
        connection.disconnect();
      },
    };
  }

  /** Works the children queue, each job completing with a held batch, its family as `family` says. */
  function childWorker(prefix: string, family: (job: FamilyJob) => Family) {
    const connections = [redisClient(db.server.url), redisClient(db.server.url)];
    const finisher = new JobFinisher(connections[0]!, family);
    const worker = new Worker(
      'children',
      (job: Job, token) => {
        finisher.hold(job.id!, token!, new FencedBatch().set(`${prefix}:answered:${job.id}`, 'yes', 'PX', 60_000));
        return Promise.resolve({ answer: job.id });
      },
      { connection: connections[1]!, prefix },
      finisher.backendFactory,
    );
    return {
      async close() {
        await worker.close();
        for (const connection of connections) connection.disconnect();
      },
    };
  }

  it('moves the parent on when its own children complete, dropping the planted job from its dependencies', async () => {
    const prefix = uniquePrefix('foreign');
    const flow = await parkedParent(prefix);
    expect(await flow.state()).toBe('waiting-children');
    const worker = childWorker(prefix, (job) => ({ ownChildren: null, parent: job.parent?.id === 'p' ? flow.parent : null }));
    try {
      await waitFor(async () => (await flow.state()) === 'waiting', { description: 'the parent moved on' });
      expect(await flow.dependencies()).toEqual([]);
      expect(await db.redis.get(`${prefix}:answered:c1`)).toBe('yes');
      // The planted job is still there, for an operator to see; it no longer holds anyone.
      expect(await flow.children.getJobState('planted')).toBe('delayed');
    } finally {
      await worker.close();
      await flow.close();
    }
  });

  it('leaves a parent without its own list as BullMQ has it: nothing is known to be foreign', async () => {
    const prefix = uniquePrefix('foreign');
    const flow = await parkedParent(prefix, false);
    const worker = childWorker(prefix, (job) => ({ ownChildren: null, parent: job.parent?.id === 'p' ? flow.parent : null }));
    try {
      await waitFor(async () => (await db.redis.get(`${prefix}:answered:c1`)) === 'yes' && (await db.redis.get(`${prefix}:answered:c0`)) === 'yes', { description: 'both children answered' });
      expect(await flow.state()).toBe('waiting-children');
      expect(await flow.dependencies()).toEqual([`${prefix}:children:planted`]);
      expect(await releaseFromForeignChildren(db.redis, flow.parent, Date.now())).toBe(false);
    } finally {
      await worker.close();
      await flow.close();
    }
  });

  it('releases a parent held only by a planted job when asked (the watchdog), and not while a child of its own is pending', async () => {
    const prefix = uniquePrefix('foreign');
    const flow = await parkedParent(prefix);
    try {
      expect(await releaseFromForeignChildren(db.redis, flow.parent, Date.now())).toBe(false);
      expect(await flow.state()).toBe('waiting-children');
      // Its children completed by a worker that does not look (an earlier version, say).
      const connection = redisClient(db.server.url);
      const worker = new Worker('children', () => Promise.resolve('done'), { connection, prefix });
      await waitFor(async () => (await flow.dependencies()).length === 1, { description: 'the own children completed' });
      await worker.close();
      connection.disconnect();
      expect(await flow.state()).toBe('waiting-children');
      expect(await releaseFromForeignChildren(db.redis, flow.parent, Date.now())).toBe(true);
      expect(await flow.state()).toBe('waiting');
      expect(await flow.dependencies()).toEqual([]);
      // Not parked any more: nothing to do.
      expect(await releaseFromForeignChildren(db.redis, flow.parent, Date.now())).toBe(false);
    } finally {
      await flow.close();
    }
  });
});
