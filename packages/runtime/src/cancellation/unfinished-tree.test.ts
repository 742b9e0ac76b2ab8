import { redisClient, uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { FlowProducer, Queue, Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { unfinishedDescendants } from './unfinished-tree.js';

describe('unfinishedDescendants, against real BullMQ flows', () => {
  const db = usePrivateRedis();

  it('finds every unfinished descendant in one call, with its tier and state, and leaves out finished ones', async () => {
    const prefix = uniquePrefix('tree');
    const connections = [redisClient(db.server.url), redisClient(db.server.url), redisClient(db.server.url)];
    const flows = new FlowProducer({ connection: connections[0]!, prefix });
    const fleet = new Worker('fleet', null, { connection: connections[1]!, prefix });
    const queue = new Queue('monitor', { connection: connections[2]!, prefix });
    try {
      const leaf = (name: string, opts: object = {}) => ({ name, queueName: 'fleet', opts: { jobId: name, ...opts } });
      await flows.add({
        name: 'root',
        queueName: 'monitor',
        opts: { jobId: 'root' },
        children: [
          {
            name: 'plan',
            queueName: 'architect',
            opts: { jobId: 'root.0' },
            children: [
              {
                name: 'route',
                queueName: 'dispatcher',
                opts: { jobId: 'root.0.0' },
                children: [leaf('done'), leaf('later', { delay: 60_000 }), leaf('urgent-a', { priority: 1 }), leaf('urgent-b', { priority: 2 })],
              },
            ],
          },
        ],
      });
      // Run one leaf to the end, and take another without finishing it.
      const done = await fleet.getNextJob('token-1');
      if (done?.id !== 'done') throw new Error(`expected the plain leaf first, got ${done?.id}`);
      await done.moveToCompleted({ ok: true }, 'token-1', false);
      expect((await fleet.getNextJob('token-2'))?.id).toBe('urgent-a');

      const nodes = await unfinishedDescendants(db.redis, prefix, 'PROGRESS_MONITOR', 'root');
      // Level by level; a level's order is the set's, so the leaves are compared sorted.
      expect(nodes.slice(0, 2)).toEqual([
        { id: 'root.0', tier: 'ABSTRACT_ARCHITECT', state: 'waiting-children' },
        { id: 'root.0.0', tier: 'ROUTING_DISPATCHER', state: 'waiting-children' },
      ]);
      expect(nodes.slice(2).sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: 'later', tier: 'SPECIALIZED_FLEET', state: 'delayed' },
        { id: 'urgent-a', tier: 'SPECIALIZED_FLEET', state: 'pending' },
        { id: 'urgent-b', tier: 'SPECIALIZED_FLEET', state: 'prioritized' },
      ]);

      // From the middle of the tree, only what is below it; from a leaf, nothing.
      expect((await unfinishedDescendants(db.redis, prefix, 'ROUTING_DISPATCHER', 'root.0.0')).map((node) => node.id).sort()).toEqual(['later', 'urgent-a', 'urgent-b']);
      expect(await unfinishedDescendants(db.redis, prefix, 'SPECIALIZED_FLEET', 'later')).toEqual([]);
      expect(await unfinishedDescendants(db.redis, prefix, 'PROGRESS_MONITOR', 'no-such-root')).toEqual([]);
    } finally {
      await Promise.all([flows.close(), fleet.close(), queue.close()]);
      for (const connection of connections) connection.disconnect();
    }
  });
});
