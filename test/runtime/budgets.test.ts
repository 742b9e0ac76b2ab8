import { llmSpecialist, SpecialistRegistry, startFleetWorker } from '@tierflow/fleet';
import type { ObjectiveFile, TierWorker } from '@tierflow/runtime';
import { FakeOpenAiServer, redisClient, waitFor } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';

// $2.50 per million tokens in, $10 out: the fake endpoint's 12 in and 5 out cost $0.00008 a call.
const PRICE = { input_usd_per_mtok: 2.5, output_usd_per_mtok: 10 };

function llmPlan(subtasks: number, extra: Partial<ObjectiveFile> = {}): ObjectiveFile {
  return {
    objective: 'write the pieces',
    task_data: {
      plan: {
        strategy: 'all_success',
        subtasks: Array.from({ length: subtasks }, (_, index) => ({ objective: `piece ${index + 1}`, specialist_hint: 'llm-writer' })),
      },
    },
    ...extra,
  };
}

describe('usage and budgets across worker processes, with a Fleet calling a model endpoint', () => {
  let deployment: Deployment;
  let fleet: TierWorker;
  let server: FakeOpenAiServer;
  let redis: Redis;
  const completions = () => server.requests.filter((request) => request.path === '/v1/chat/completions').length;

  beforeAll(async () => {
    server = await FakeOpenAiServer.start(['llm-writer']);
    deployment = await startDeployment('budgets', { TIERFLOW_LOG: 'silent' }, { tiers: ['monitor', 'architect', 'dispatcher'] });
    redis = redisClient(deployment.redis.url);
    const registry = new SpecialistRegistry([llmSpecialist({ name: 'llm-writer', baseURL: server.baseURL, apiKey: 'test', price: PRICE })]);
    const silent = { info: () => undefined, warn: () => undefined };
    fleet = await startFleetWorker({ runtime: deployment.runtime, registry, log: silent });
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    redis?.disconnect();
    await deployment?.stop();
    await server?.close();
  });

  it('a run without a budget reports at its root the tokens, cost and calls of all its subtasks', async () => {
    const before = completions();
    const rootId = await deployment.client.enqueue(llmPlan(4));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('success');
    expect(completions() - before).toBe(4);
    expect(outcome.payload.resources_used.usage).toEqual({ tokens_in: 48, tokens_out: 20, cost_usd: 0.00032, llm_calls: 4 });
    // Redis counted the same, with no limits to enforce.
    expect(await redis.hmget(`${deployment.runtime.prefix}:budget:${rootId}`, 'llm_calls', 'tokens_in', 'cost_micro_usd', 'exceeded')).toEqual(['4', '48', '320', null]);
  });

  it('a run over max_llm_calls is cancelled whole, once, with budget_exceeded, and its root keeps what was used', async () => {
    const before = completions();
    const rootId = await deployment.client.enqueue(llmPlan(6, { budget: { max_llm_calls: 2 } }));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload).toMatchObject({ status: 'cancelled', error_type: 'budget_exceeded', recoverable: false });
    expect(outcome.payload.error_detail).toContain('max_llm_calls 2 reached');
    // Never more calls than the budget, however many Fleet jobs reserved at once.
    expect(completions() - before).toBeLessThanOrEqual(2);
    const usage = outcome.payload.resources_used.usage as { llm_calls: number; tokens_in: number };
    expect(usage.llm_calls).toBeLessThanOrEqual(2);
    // What was done may come up with the cancellation, each answered call's output once at most:
    // whether a call's answer reaches its parent before the cancellation does is a race (the rule
    // itself, that stopped work passes up what did not fail, is tested in engine/failures.test.ts).
    const outputs = outcome.payload.artifacts.filter((artifact) => artifact.artifact_type === 'llm_output');
    expect(outputs.length).toBeLessThanOrEqual(completions() - before);
    const budgetKey = `${deployment.runtime.prefix}:budget:${rootId}`;
    expect(await redis.hmget(budgetKey, 'max_llm_calls', 'llm_calls', 'exceeded')).toEqual(['2', '2', 'max_llm_calls']);
    // The stop was queued once and taken by the Monitor: nothing is left to cancel.
    await waitFor(async () => (await redis.zcard(`${deployment.runtime.prefix}:budget-stops`)) === 0, { timeoutMs: 10_000, description: 'the budget stop handled' });
  });
});
