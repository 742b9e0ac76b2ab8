import { llmSpecialist, SpecialistRegistry, startFleetWorker } from '@tierflow/fleet';
import type { OutcomeMessage } from '@tierflow/protocol';
import type { ObjectiveFile, TierWorker } from '@tierflow/runtime';
import { FakeOpenAiServer, redisClient, waitFor } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { treeNodes } from '../support/runs.js';

// Two Fleet workers, each with its own Redis connections, share each model's limits through Redis
// alone: nothing of one is known to the other but what the limit scripts keep.
describe('model limits shared by two Fleet workers', () => {
  let deployment: Deployment;
  const fleets: TierWorker[] = [];
  let redis: Redis;
  const servers: Record<'rpm' | 'sliding' | 'busy' | 'slot' | 'fair', FakeOpenAiServer> = {} as never;

  beforeAll(async () => {
    deployment = await startDeployment('model-limits', { TIERFLOW_LOG: 'silent' }, { tiers: ['monitor', 'architect', 'dispatcher'] });
    redis = redisClient(deployment.redis.url);
    for (const name of ['rpm', 'sliding', 'busy', 'slot', 'fair'] as const) servers[name] = await FakeOpenAiServer.start([name]);
    // A provider that enforces the limit itself: a request past it would get a 429 we did not script.
    servers.rpm.rateLimit = { limit: 6, windowMs: 60_000 };
    const log = { info: () => undefined, warn: () => undefined };
    for (const process of ['a', 'b']) {
      // The key tells which worker sent a request (a prompt of its own would make it another agent).
      const spec = (name: keyof typeof servers, limits: Parameters<typeof llmSpecialist>[0]['limits']) =>
        llmSpecialist({ name, baseURL: servers[name].baseURL, apiKey: `worker-${process}`, ...(limits ? { limits } : {}) });
      const registry = new SpecialistRegistry([
        spec('rpm', { rpm: 6 }),
        spec('sliding', { rpm: 3, windowMs: 1_500 }),
        spec('busy', undefined),
        spec('slot', { concurrent: 1 }),
        spec('fair', { concurrent: 1 }),
      ]);
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

  it('pauses a model for both workers when the server answers 429 with Retry-After', async () => {
    const server = servers.busy;
    server.replies.push({ status: 429, headers: { 'retry-after': '2' }, body: { error: { message: 'slow down' } } });
    const first = await deployment.client.enqueue(plan(1, 'busy', 20_000));
    const pauseKey = `${deployment.runtime.prefix.replace('}', ':limit:busy}')}:pause`;
    await waitFor(async () => (await redis.pttl(pauseKey)) > 0, { timeoutMs: 20_000 });
    const refusedAt = server.requests[0]!.at;
    // Sent while the model is paused: each of its leaves waits the pause out, on whichever worker it runs.
    const second = await deployment.client.enqueue(plan(6, 'busy', 20_000));
    for (const rootId of [first, second]) expect((await deployment.client.waitForResult(rootId, { timeoutMs: 60_000 })).payload.status).toBe('success');
    const after = server.requests.slice(1).map((request) => request.at - refusedAt);
    expect(after).toHaveLength(7);
    // Retry-After is whole seconds: a little under 2 s allows for when the pause was written after the 429 arrived.
    for (const ms of after) expect(ms).toBeGreaterThanOrEqual(1_900);
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

  it('serves a small run in turn beside a big one on a model that takes one request at a time', async () => {
    const server = servers.fair;
    server.latencyMs = 150;
    const pieces = (run: string, count: number) => ({
      objective: `${run} run`,
      task_data: {
        plan: { strategy: 'all_success', subtasks: Array.from({ length: count }, (_, index) => ({ objective: `${run} piece ${index + 1}`, specialist_hint: 'fair', timeout_ms: 30_000 })) },
      },
    });
    // Six leaves fill the two workers' six slots; the small run's leaves join as slots free.
    const big = await deployment.client.enqueue(pieces('big', 6));
    await waitFor(() => server.received >= 1, { timeoutMs: 20_000, description: 'the big run’s first request' });
    const small = await deployment.client.enqueue(pieces('small', 2));
    for (const rootId of [big, small]) expect((await deployment.client.waitForResult(rootId, { timeoutMs: 60_000 })).payload.status).toBe('success');
    const runOf = (request: (typeof server.requests)[number]) => (JSON.stringify(request.body).includes('small piece') ? 'small' : 'big');
    const order = server.requests.filter((request) => request.path === '/v1/chat/completions').map(runOf);
    expect(order).toHaveLength(8);
    // First come, first served, the small run would go last (7th and 8th); in turn, each of its calls
    // goes ahead of the big run's calls that have waited longer than it has, but not of those it came after.
    // (Here: big, big, small, big, small, big, big, big.)
    expect(order.indexOf('small')).toBeLessThanOrEqual(3);
    expect(order.lastIndexOf('small')).toBeLessThanOrEqual(5);
  }, 60_000);
});
