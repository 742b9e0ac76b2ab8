import { llmSpecialist, SpecialistRegistry, startFleetWorker } from '@tierflow/fleet';
import type { OutcomeMessage } from '@tierflow/protocol';
import type { ObjectiveFile, TierWorker } from '@tierflow/runtime';
import { readAuditTrail, readNodeView } from '@tierflow/runtime/admin';
import { FakeOpenAiServer, redisClient, waitFor } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { treeNodes } from '../support/runs.js';

// A leaf that must wait long for its model leaves its Fleet slot (BullMQ's delayed set) and comes
// back in its turn: one Fleet worker with two slots, so every slot a waiting leaf held would show.
describe('leaves waiting for their model, off the worker', () => {
  let deployment: Deployment;
  let fleet: TierWorker;
  let redis: Redis;
  let queue: Queue;
  const servers: Record<'held' | 'free' | 'turns', FakeOpenAiServer> = {} as never;

  beforeAll(async () => {
    deployment = await startDeployment('model-parking', { TIERFLOW_LOG: 'silent' }, { tiers: ['monitor', 'architect', 'dispatcher'] });
    redis = redisClient(deployment.redis.url);
    queue = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    for (const name of ['held', 'free', 'turns'] as const) servers[name] = await FakeOpenAiServer.start([name]);
    const registry = new SpecialistRegistry([
      // One request per 20 s: every leaf after the first waits far longer than the test runs.
      llmSpecialist({ name: 'held', baseURL: servers.held.baseURL, limits: { rpm: 1, windowMs: 20_000 } }),
      llmSpecialist({ name: 'free', baseURL: servers.free.baseURL }),
      llmSpecialist({ name: 'turns', baseURL: servers.turns.baseURL, limits: { rpm: 1, windowMs: 2_500 } }),
    ]);
    fleet = await startFleetWorker({ runtime: deployment.runtime, registry, log: { info: () => undefined, warn: () => undefined }, concurrency: 2 });
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    await queue?.close();
    redis?.disconnect();
    await deployment?.stop();
    await Promise.all(Object.values(servers).map((server) => server.close()));
  });

  function plan(subtasks: number, specialist: string, timeoutMs: number): ObjectiveFile {
    return {
      objective: `${specialist} pieces`,
      task_data: {
        plan: { strategy: 'all_success', subtasks: Array.from({ length: subtasks }, (_, index) => ({ objective: `piece ${index + 1}`, specialist_hint: specialist, timeout_ms: timeoutMs })) },
      },
    };
  }

  async function fleetLeaves(rootId: string, specialist: string) {
    return treeNodes((await deployment.client.tree(rootId))!, 'SPECIALIZED_FLEET').filter((leaf) => leaf.specialist === specialist);
  }

  async function outcomesOf(ids: readonly string[]): Promise<OutcomeMessage[]> {
    return (await Promise.all(ids.map(async (id) => (await queue.getJob(id))?.returnvalue as OutcomeMessage | undefined))).filter((outcome) => outcome !== undefined);
  }

  it('serves a leaf for another model while every leaf of a limited one waits, and a cancel reaches the waiting leaves at once', async () => {
    const held = await deployment.client.enqueue(plan(4, 'held', 60_000));
    // One request got through; the other three leaves wait for the window, parked, not in the two slots.
    await waitFor(async () => servers.held.completions() === 1 && (await queue.getDelayedCount()) === 3, { timeoutMs: 20_000, description: 'three leaves parked' });
    const free = await deployment.client.enqueue(plan(2, 'free', 20_000));
    const served = await deployment.client.waitForResult(free, { timeoutMs: 10_000 });
    expect(served.payload.status).toBe('success');
    expect(servers.held.completions()).toBe(1);
    const waiting = (await fleetLeaves(held, 'held')).filter((leaf) => leaf.status !== 'success');
    // Shown as deferred (waiting off the worker), not as a retry.
    expect(waiting.map((leaf) => leaf.status)).toEqual(['deferred', 'deferred', 'deferred']);

    const cancelledAt = Date.now();
    await deployment.client.cancel(held, { reason: 'not needed' });
    const outcome = await deployment.client.waitForResult(held, { timeoutMs: 15_000 });
    // Far sooner than the window: the cancel woke the parked leaves rather than waiting for them.
    expect(Date.now() - cancelledAt).toBeLessThan(10_000);
    expect(outcome.payload.status).toBe('cancelled');
    for (const leaf of await outcomesOf(waiting.map((leaf) => leaf.id))) expect(leaf.payload.status).toBe('cancelled');
    expect(servers.held.completions()).toBe(1);
  }, 60_000);

  it('brings a parked leaf back in its turn, records the wait, and answers throttled the one whose next wait passes its deadline', async () => {
    const server = servers.turns;
    const rootId = await deployment.client.enqueue(plan(3, 'turns', 4_000));
    await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    const leaves = await fleetLeaves(rootId, 'turns');
    const answers = await outcomesOf(leaves.map((leaf) => leaf.id));
    expect(answers.map((answer) => answer.payload.status).sort()).toEqual(['success', 'success', 'throttled']);
    expect(answers.find((answer) => answer.payload.status === 'throttled')?.payload.error_detail).toContain('rpm limit');
    expect(server.completions()).toBe(2);
    expect(server.mostInAnyWindow(2_300)).toBe(1);

    // The leaf served after its wait: one pass deferred, its wait on record as one for its model, received once.
    const views = await Promise.all(leaves.map((leaf) => readNodeView(redis, deployment.runtime.prefix, leaf.id)));
    const waited = views.find((view) => view?.passes.some((pass) => pass.end === 'deferred') && view.status === 'success');
    expect(waited).toBeDefined();
    expect(waited!.waits.map((wait) => wait.kind)).toContain('model');
    expect(waited!.calls).toHaveLength(1);
    const trail = await readAuditTrail(redis, deployment.runtime.prefix, rootId);
    expect(trail.filter((record) => record.kind === 'delegation' && record.direction === 'received' && record.id === waited!.id)).toHaveLength(1);
  }, 60_000);
});
