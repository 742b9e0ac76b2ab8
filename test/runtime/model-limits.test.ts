import { llmSpecialist, SpecialistRegistry, startFleetWorker } from '@tierflow/fleet';
import type { OutcomeMessage } from '@tierflow/protocol';
import type { ObjectiveFile, TierWorker } from '@tierflow/runtime';
import { FakeOpenAiServer, redisClient } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { treeNodes } from '../support/runs.js';

// Two Fleet workers, each with its own Redis connections, share each model's limits through Redis
// alone: nothing of one is known to the other but what the limit scripts keep. In one process, for
// what a project file cannot set (a window shorter than a minute); the pause and the turns are
// tested over two processes (model-limits-processes.test.ts).
describe('model limits shared by two Fleet workers', () => {
  let deployment: Deployment;
  const fleets: TierWorker[] = [];
  let redis: Redis;
  const servers: Record<'rpm' | 'sliding' | 'slot', FakeOpenAiServer> = {} as never;

  beforeAll(async () => {
    deployment = await startDeployment('model-limits', { TIERFLOW_LOG: 'silent' }, { tiers: ['monitor', 'architect', 'dispatcher'] });
    redis = redisClient(deployment.redis.url);
    for (const name of ['rpm', 'sliding', 'slot'] as const) servers[name] = await FakeOpenAiServer.start([name]);
    // A provider that enforces the limit itself: a request past it would get a 429 we did not script.
    servers.rpm.rateLimit = { limit: 6, windowMs: 60_000 };
    const log = { info: () => undefined, warn: () => undefined };
    for (const process of ['a', 'b']) {
      // The key tells which worker sent a request (a prompt of its own would make it another agent).
      const spec = (name: keyof typeof servers, limits: Parameters<typeof llmSpecialist>[0]['limits']) =>
        llmSpecialist({ name, baseURL: servers[name].baseURL, apiKey: `worker-${process}`, ...(limits ? { limits } : {}) });
      const registry = new SpecialistRegistry([spec('rpm', { rpm: 6 }), spec('sliding', { rpm: 3, windowMs: 1_500 }), spec('slot', { concurrent: 1 })]);
      fleets.push(await startFleetWorker({ runtime: deployment.runtime, registry, log, concurrency: 3 }));
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(fleets.map((fleet) => fleet.close()));
    redis?.disconnect();
    await deployment?.stop();
    await Promise.all(Object.values(servers).map((server) => server.close()));
  });

  function plan(subtasks: number, specialist: string, timeoutMs: number): ObjectiveFile {
    return {
      objective: 'write the pieces',
      task_data: {
        plan: { strategy: 'all_success', subtasks: Array.from({ length: subtasks }, (_, index) => ({ objective: `piece ${index + 1}`, specialist_hint: specialist, timeout_ms: timeoutMs })) },
      },
    };
  }

  /** Each leaf's outcome, as a Fleet sent it. */
  async function leafOutcomes(rootId: string): Promise<OutcomeMessage[]> {
    const leaves = treeNodes((await deployment.client.tree(rootId))!, 'SPECIALIZED_FLEET');
    const queue = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    try {
      return (await Promise.all(leaves.map(async (leaf) => (await queue.getJob(leaf.id))?.returnvalue as OutcomeMessage | undefined))).filter((outcome) => outcome !== undefined);
    } finally {
      await queue.close();
    }
  }

  const senders = (server: FakeOpenAiServer) => new Set(server.requests.map((request) => request.headers.authorization));

  it('never lets more than rpm requests reach the model in a window, and the leaves past it answer throttled', async () => {
    const server = servers.rpm;
    // The first six are held until all six have arrived: three from each worker, at once.
    server.holdUntil(6);
    const rootId = await deployment.client.enqueue(plan(12, 'rpm', 8_000));
    await deployment.client.waitForResult(rootId, { timeoutMs: 60_000 });
    expect(server.completions()).toBe(6);
    expect(server.overLimit).toBe(0);
    expect(senders(server)).toEqual(new Set(['Bearer worker-a', 'Bearer worker-b']));
    const answers = await leafOutcomes(rootId);
    expect(answers.filter((answer) => answer.payload.status === 'success')).toHaveLength(6);
    // A throttled subtask is then sent to another specialist (sim), which these workers do not serve.
    const refused = answers.filter((answer) => answer.payload.status !== 'success' && answer.payload.error_type !== 'unknown_agent');
    expect(refused.length).toBeGreaterThanOrEqual(6);
    for (const answer of refused) {
      expect(answer.payload).toMatchObject({ status: 'throttled', error_type: 'throttled' });
      expect(answer.payload.error_detail).toContain('rpm limit');
    }
  }, 60_000);

  it('lets requests through again as the window slides, never more than rpm in any window', async () => {
    const server = servers.sliding;
    const rootId = await deployment.client.enqueue(plan(7, 'sliding', 20_000));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 60_000 });
    expect(outcome.payload.status).toBe('success');
    expect(server.completions()).toBe(7);
    // The window is counted at grant, the server counts at arrival: a little less than the window absorbs the gap between them.
    expect(server.mostInAnyWindow(1_300)).toBeLessThanOrEqual(3);
    expect(senders(server)).toEqual(new Set(['Bearer worker-a', 'Bearer worker-b']));
  }, 60_000);

  it('ends a leaf waiting for a concurrent slot throttled at its deadline', async () => {
    const server = servers.slot;
    // The one request let through hangs: its leaf holds the only slot until its own deadline.
    server.replies.push({ hang: true });
    const rootId = await deployment.client.enqueue(plan(2, 'slot', 3_000));
    await deployment.client.waitForResult(rootId, { timeoutMs: 60_000 });
    const answers = await leafOutcomes(rootId);
    expect(answers.some((answer) => answer.payload.error_type === 'throttled' && /concurrent/.test(answer.payload.error_detail ?? ''))).toBe(true);
  }, 60_000);
});
