import { llmSpecialist, SpecialistRegistry, startFleetWorker } from '@tierflow/fleet';
import type { OutcomeMessage } from '@tierflow/protocol';
import type { ObjectiveFile, TierWorker } from '@tierflow/runtime';
import { FakeOpenAiServer, redisClient } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { treeNodes } from '../support/runs.js';

function plan(subtasks: number, maxCalls: number): ObjectiveFile {
  return {
    objective: 'write the pieces',
    task_data: {
      plan: { strategy: 'all_success', subtasks: Array.from({ length: subtasks }, (_, index) => ({ objective: `piece ${index + 1}`, specialist_hint: 'llm-down' })) },
    },
    budget: { max_llm_calls: maxCalls },
  };
}

describe('a model endpoint that cannot be reached', () => {
  let deployment: Deployment;
  let fleet: TierWorker;
  let redis: Redis;
  let endpoint: string;

  beforeAll(async () => {
    // A port that was just listening and is closed now: connections to it are refused.
    const closed = await FakeOpenAiServer.start(['llm-down']);
    endpoint = closed.baseURL;
    await closed.close();
    deployment = await startDeployment('unreachable', { TIERFLOW_LOG: 'silent' }, { tiers: ['monitor', 'architect', 'dispatcher'] });
    redis = redisClient(deployment.redis.url);
    const registry = new SpecialistRegistry([llmSpecialist({ name: 'llm-down', baseURL: endpoint, apiKey: 'test', price: { input_usd_per_mtok: 2.5, output_usd_per_mtok: 10 } })]);
    const log = { info: () => undefined, warn: () => undefined };
    fleet = await startFleetWorker({ runtime: deployment.runtime, registry, log });
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    redis?.disconnect();
    await deployment?.stop();
  });

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
    const leaves = treeNodes((await deployment.client.tree(rootId))!, 'SPECIALIZED_FLEET');
    expect(leaves).toHaveLength(2);
    const queue = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    try {
      for (const leaf of leaves) {
        const answer = (await queue.getJob(leaf.id))!.returnvalue as OutcomeMessage;
        expect(answer.payload).toMatchObject({ status: 'failed', error_type: 'model_unreachable' });
        expect(answer.payload.error_detail).toBe(`model endpoint ${endpoint} unreachable (connection refused) after 3 tries, for llm-down`);
      }
    } finally {
      await queue.close();
    }
  });
});
