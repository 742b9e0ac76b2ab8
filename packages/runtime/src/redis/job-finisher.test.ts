import { redisClient, uniquePrefix, waitFor } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { FlowProducer, Queue, Worker, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { lockKey, processedKey } from './bullmq-keys.js';
import { FencedBatch } from './fenced-batch.js';
import { JobFinisher } from './job-finisher.js';

describe('JobFinisher, completing real BullMQ jobs', () => {
  const db = usePrivateRedis();

  /** A worker on queue `q` whose processor holds `writes(job)` with the finisher, then answers `{ answer: job.name }`. */
  function start(prefix: string, writes: (job: Job, token: string) => FencedBatch | null, before?: (job: Job) => Promise<void>) {
    const connections = [redisClient(db.server.url), redisClient(db.server.url), redisClient(db.server.url)];
    const finisher = new JobFinisher(connections[0]!);
    const failures: string[] = [];
    const worker = new Worker(
      'q',
      async (job, token) => {
        const batch = writes(job, token!);
        if (batch) finisher.hold(job.id!, token!, batch);
        await before?.(job);
        return { answer: job.name };
      },
      { connection: connections[1]!, prefix, lockDuration: 5_000 },
      finisher.backendFactory,
    );
    worker.on('error', (error) => failures.push(error.message));
    const queue = new Queue('q', { connection: connections[2]!, prefix });
    return {
      finisher,
      worker,
      queue,
      failures,
      async stop() {
        await Promise.all([worker.close(), queue.close()]);
        for (const connection of connections) connection.disconnect();
      },
    };
  }

  it("writes a pass's held writes and completes its job in one step; jobs without any complete as BullMQ does", async () => {
    const prefix = uniquePrefix('finish');
    const run = start(prefix, (job) => (job.name === 'plain' ? null : new FencedBatch().set(`${prefix}:record:${job.id}`, 'written', 'PX', 60_000).del(`${prefix}:gone`)));
    try {
      await db.redis.set(`${prefix}:gone`, 'x');
      const [held, plain] = await Promise.all([run.queue.add('held', {}, { jobId: 'a' }), run.queue.add('plain', {}, { jobId: 'b' })]);
      await waitFor(async () => (await held.getState()) === 'completed' && (await plain.getState()) === 'completed', { description: 'both jobs completed' });
      expect((await run.queue.getJob('a'))?.returnvalue).toEqual({ answer: 'held' });
      expect((await run.queue.getJob('b'))?.returnvalue).toEqual({ answer: 'plain' });
      expect(await db.redis.get(`${prefix}:record:a`)).toBe('written');
      expect(await db.redis.pttl(`${prefix}:record:a`)).toBeGreaterThan(50_000);
      expect(await db.redis.exists(`${prefix}:gone`, `${prefix}:record:b`)).toBe(0);
      expect(run.finisher.size).toBe(0);
    } finally {
      await run.stop();
    }
  });

  it('writes a record of the return value from the one copy the script is sent', async () => {
    const prefix = uniquePrefix('finish-returned');
    const connections = [redisClient(db.server.url), redisClient(db.server.url), redisClient(db.server.url)];
    const finisher = new JobFinisher(connections[0]!);
    const worker = new Worker(
      'q',
      (job, token) => {
        const answer = { answer: job.name, text: 'ü' };
        finisher.hold(job.id!, token!, new FencedBatch().setReturnValue(`${prefix}:answer:${job.id}`, answer, 60_000).set(`${prefix}:after`, 'yes'));
        return Promise.resolve(answer);
      },
      { connection: connections[1]!, prefix },
      finisher.backendFactory,
    );
    const queue = new Queue('q', { connection: connections[2]!, prefix });
    // What the finisher's connection sends.
    const sent: unknown[][] = [];
    const send = connections[0]!.sendCommand.bind(connections[0]!);
    connections[0]!.sendCommand = (command, stream) => {
      sent.push(command.args);
      return send(command, stream);
    };
    try {
      const job = await queue.add('held', {}, { jobId: 'r' });
      await waitFor(async () => (await job.getState()) === 'completed', { description: 'the job completed' });
      const stored = await db.redis.hget(`${prefix}:q:r`, 'returnvalue');
      expect(stored).toBe(JSON.stringify({ answer: 'held', text: 'ü' }));
      // The completion carried the value once, though it is written twice.
      await waitFor(() => sent.some((args) => args.includes(stored!)), { description: 'the completion seen' });
      expect(sent.find((args) => args.includes(stored!))!.filter((arg) => arg === stored).length).toBe(1);
      expect(await db.redis.get(`${prefix}:answer:r`)).toBe(stored);
      expect(await db.redis.pttl(`${prefix}:answer:r`)).toBeGreaterThan(50_000);
      expect(await db.redis.get(`${prefix}:after`)).toBe('yes');
    } finally {
      await Promise.all([worker.close(), queue.close()]);
      for (const connection of connections) connection.disconnect();
    }
  });

  it("a child's completion still reaches its parent, with the writes", async () => {
    const prefix = uniquePrefix('finish-flow');
    const run = start(prefix, (job) => new FencedBatch().set(`${prefix}:record:${job.id}`, 'written'));
    const flows = new FlowProducer({ connection: redisClient(db.server.url), prefix });
    try {
      await flows.add({ name: 'parent', queueName: 'parents', opts: { jobId: 'p' }, children: [{ name: 'child', queueName: 'q', opts: { jobId: 'c' } }] });
      await waitFor(async () => (await db.redis.hlen(processedKey({ queueQualifiedName: `${prefix}:parents`, id: 'p' }))) === 1, { description: 'the parent to hold its child value' });
      expect(await db.redis.hget(processedKey({ queueQualifiedName: `${prefix}:parents`, id: 'p' }), `${prefix}:q:c`)).toBe(JSON.stringify({ answer: 'child' }));
      expect(await db.redis.get(`${prefix}:record:c`)).toBe('written');
    } finally {
      await flows.close();
      await run.stop();
    }
  });

  it('writes nothing and completes nothing once the job is no longer the pass’s (its lock taken)', async () => {
    const prefix = uniquePrefix('finish-lost');
    const run = start(
      prefix,
      (job) => new FencedBatch().set(`${prefix}:record:${job.id}`, 'written'),
      // Another worker's token in the lock, as after this one stalled and the job was taken back.
      async (job) => void (await db.redis.set(lockKey(job), 'someone-else')),
    );
    try {
      const job = await run.queue.add('held', {}, { jobId: 'l' });
      await waitFor(() => run.failures.length > 0, { description: 'the completion to be refused' });
      expect(run.failures[0]).toMatch(/lock/i);
      expect(await job.getState()).toBe('active');
      expect(await db.redis.exists(`${prefix}:record:l`)).toBe(0);
      expect(run.finisher.size).toBe(0);
    } finally {
      await run.stop();
    }
  });
});
