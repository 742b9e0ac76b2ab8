import { llmSpecialist, SpecialistRegistry, startFleetWorker } from '@tierflow/fleet';
import type { OutcomeMessage } from '@tierflow/protocol';
import type { ObjectiveFile, TierWorker } from '@tierflow/runtime';
import { FakeOpenAiServer, redisClient } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { treeNodes } from '../support/runs.js';

function plan(subtasks: number, maxCalls: number, specialist = 'llm-down'): ObjectiveFile {
  return {
    objective: 'write the pieces',
    task_data: {
      plan: { strategy: 'all_success', subtasks: Array.from({ length: subtasks }, (_, index) => ({ objective: `piece ${index + 1}`, specialist_hint: specialist })) },
    },
    budget: { max_llm_calls: maxCalls },
  };
}

describe('a model endpoint that cannot be reached', () => {
  let deployment: Deployment;
  let fleet: TierWorker;
  let redis: Redis;
  let endpoint: string;
  // A reachable endpoint that answers with an error: its calls reached a model server, and count.
  let failing: FakeOpenAiServer;

  beforeAll(async () => {
    // A port that was just listening and is closed now: connections to it are refused.
    const closed = await FakeOpenAiServer.start(['llm-down']);
    endpoint = closed.baseURL;
    await closed.close();
    deployment = await startDeployment('unreachable', { TIERFLOW_LOG: 'silent' }, { tiers: ['monitor', 'architect', 'dispatcher'] });
    redis = redisClient(deployment.redis.url);
    failing = await FakeOpenAiServer.start(['llm-failing']);
    const price = { input_usd_per_mtok: 2.5, output_usd_per_mtok: 10 };
    const registry = new SpecialistRegistry([
      llmSpecialist({ name: 'llm-down', baseURL: endpoint, apiKey: 'test', price }),
      llmSpecialist({ name: 'llm-failing', baseURL: failing.baseURL, apiKey: 'test', price }),
    ]);
    const log = { info: () => undefined, warn: () => undefined };
    fleet = await startFleetWorker({ runtime: deployment.runtime, registry, log });
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    redis?.disconnect();
    await deployment?.stop();
    await failing?.close();
  });

  /** Each leaf's outcome, as the Fleet sent it. */
  async function leafOutcomes(rootId: string): Promise<OutcomeMessage[]> {
    const leaves = treeNodes((await deployment.client.tree(rootId))!, 'SPECIALIZED_FLEET');
    const queue = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    try {
      return await Promise.all(leaves.map(async (leaf) => (await queue.getJob(leaf.id))!.returnvalue as OutcomeMessage));
    } finally {
      await queue.close();
    }
  }

  it('makes each leaf answer failed with model_unreachable naming the endpoint, never budget_exceeded, and the budget counts none of its tries', async () => {
    // As many calls as subtasks: one try each fits, and the retries of an unreachable endpoint must not spend the rest.
    const rootId = await deployment.client.enqueue(plan(2, 2));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 60_000 });
    expect(outcome.payload.error_type).not.toBe('budget_exceeded');
    expect(outcome.payload.status).toBe('failed');
    expect(await redis.hmget(`${deployment.runtime.prefix}:budget:${rootId}`, 'llm_calls', 'tokens_in', 'tokens_out', 'cost_micro_usd', 'held_tokens', 'exceeded')).toEqual([
      '0',
      '0',
      '0',
      '0',
      '0',
      null,
    ]);
    // Each leaf tried the endpoint and answered what it found, naming it.
    const answers = await leafOutcomes(rootId);
    expect(answers).toHaveLength(2);
    for (const answer of answers) {
      expect(answer.payload).toMatchObject({ status: 'failed', error_type: 'model_unreachable' });
      expect(answer.payload.error_detail).toBe(`model endpoint ${endpoint} unreachable (connection refused) after 3 tries, for llm-down`);
    }
  });

  it('with more leaves than max_llm_calls trying it at once, a call waits for those in flight instead of ending the run budget_exceeded', async () => {
    // Four leaves, two calls: reservations held by tries that never reach a model are given back, so each leaf gets its turn.
    const rootId = await deployment.client.enqueue(plan(4, 2));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 60_000 });
    expect(outcome.payload.error_type).not.toBe('budget_exceeded');
    const answers = await leafOutcomes(rootId);
    expect(answers.map((answer) => answer.payload.error_type)).toEqual(Array(4).fill('model_unreachable'));
    expect(await redis.hmget(`${deployment.runtime.prefix}:budget:${rootId}`, 'llm_calls', 'held_calls', 'exceeded')).toEqual(['0', '0', null]);
  });

  it('an endpoint that answers with an error gets the code its status maps to, and each call that reached it counts', async () => {
    for (let i = 0; i < 3; i++) failing.replies.push({ status: 500, body: { error: { message: 'the model crashed' } } });
    const rootId = await deployment.client.enqueue(plan(1, 10, 'llm-failing'));
    await deployment.client.waitForResult(rootId, { timeoutMs: 60_000 });
    // A transient status, retried by the runtime on every attempt, then failed (and revised by the Architect: its leaf answers).
    const failed = (await leafOutcomes(rootId)).filter((answer) => answer.payload.status === 'failed');
    expect(failed.map((answer) => answer.payload.error_type)).toEqual(['retries_exhausted']);
    expect(failed[0]!.payload.error_detail).toContain(`llm-failing at ${failing.baseURL}: 500`);
    // Every request that reached the endpoint is a call: the three refused, and the answered one.
    expect(await redis.hmget(`${deployment.runtime.prefix}:budget:${rootId}`, 'llm_calls', 'exceeded')).toEqual([String(failing.completions()), null]);
    expect(failing.completions()).toBeGreaterThanOrEqual(3);
  });
});
