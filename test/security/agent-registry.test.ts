import { agentKey } from '@tierflow/beads';
import type { AgentIdentity, OutcomeMessage } from '@tierflow/protocol';
import { AgentBlocks, buildDelegation } from '@tierflow/runtime/admin';
import { type ObjectiveFile } from '@tierflow/runtime';
import { redisClient } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { submitJob } from '../support/queue-jobs.js';
import { treeNodes } from '../support/runs.js';

// The agent registry needs no signing: four plain worker processes.
let deployment: Deployment;
let redis: Redis;
let sim: AgentIdentity;

beforeAll(async () => {
  deployment = await startDeployment('agent-registry', { TIERFLOW_LOG: 'silent' });
  redis = redisClient(deployment.redis.url);
  const published = JSON.parse((await redis.get(`${deployment.runtime.prefix}:beads:${agentKey('sim')}`)) ?? 'null') as AgentIdentity & { registered_at: string };
  sim = { agent_id: published.agent_id, agent_version: published.agent_version, prompt_hash: published.prompt_hash };
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await deployment?.stop();
});

const plan = (subtask: Record<string, unknown>): ObjectiveFile => ({
  objective: 'agents',
  task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'work', task_data: { sim: {} }, ...subtask }] } },
});

async function run(objective: ObjectiveFile) {
  const id = await deployment.client.enqueue(objective);
  const outcome = await deployment.client.waitForResult(id, { timeoutMs: 20_000 });
  const fleet = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
  try {
    const nodes = treeNodes((await deployment.client.tree(id))!, 'SPECIALIZED_FLEET');
    const jobs = await Promise.all(nodes.map((node) => fleet.getJob(node.id)));
    return { outcome, fleet: jobs.map((job) => ({ data: job?.data as { payload: Record<string, unknown> }, answer: job?.returnvalue as OutcomeMessage })) };
  } finally {
    await fleet.close();
  }
}

const fleetDelegation = (id: string, payload: Record<string, unknown>) =>
  buildDelegation('ROUTING_DISPATCHER', id, null, { task_type: 'general', objective: 'x', specialist_hint: 'sim', ...payload }, Date.now());

describe('the agent registry', () => {
  it('is published by the Fleet at start: id, version and prompt hash of each specialist', () => {
    expect(sim).toMatchObject({ agent_id: 'sim', agent_version: '1.0.0', prompt_hash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown });
  });

  it('pins every Fleet delegation the Dispatcher sends to the registered agent, which runs it', async () => {
    const { outcome, fleet } = await run(plan({}));
    expect(outcome.payload.status).toBe('success');
    expect(fleet[0]?.data.payload.target_agent).toEqual(sim);
  });

  it('refuses a plan pinned to another prompt hash: agent_hash_mismatch, not retried, not revised', async () => {
    const { outcome, fleet } = await run(plan({ target_agent: { ...sim, prompt_hash: '0'.repeat(64) } }));
    expect(outcome.payload.status).toBe('failed');
    expect(fleet).toHaveLength(1);
    expect(fleet[0]?.answer.payload).toMatchObject({ status: 'failed', error_type: 'agent_hash_mismatch', recoverable: false });
    // The Fleet blocked sim for the deployment (docs/operations.md#governed-handoffs): lifted, as `tierflow lock --accept sim` does, for the tests below.
    expect(await new AgentBlocks(redis, deployment.runtime.prefix).lift('sim')).toMatchObject({ agent_id: 'sim' });
  });

  it('routes around an agent the Fleet does not register, to the next one', async () => {
    const { outcome, fleet } = await run(plan({ task_type: 'render', specialist_hint: 'gpu-lora' }));
    expect(outcome.payload.status).toBe('success');
    expect(fleet.map((node) => node.answer.payload.error_type ?? node.answer.payload.status)).toEqual(['unknown_agent', 'success']);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown agent', { specialist_hint: 'ghost' }, 'unknown_agent'],
    ['an unknown pinned agent', { specialist_hint: null, target_agent: { agent_id: 'ghost', agent_version: '1', prompt_hash: 'a'.repeat(64) } }, 'unknown_agent'],
    ['a hash mismatch', { target_agent: { agent_id: 'sim', agent_version: '1.0.0', prompt_hash: 'a'.repeat(64) } }, 'agent_hash_mismatch'],
    ['a version mismatch', { target_agent: { agent_id: 'sim', agent_version: '0.9.0', prompt_hash: 'a'.repeat(64) } }, 'agent_hash_mismatch'],
  ])('answers a delegation for %s with an unrecoverable failure at once', async (_name, payload, errorType) => {
    // Each case meets sim unblocked: a mismatch blocks it until reconciled.
    await new AgentBlocks(redis, deployment.runtime.prefix).lift('sim');
    const id = `agent-${errorType}-${Object.keys(payload).join('-')}-${String(payload.specialist_hint)}`;
    const job = await submitJob(redis, deployment.runtime.prefix, 'fleet', id, fleetDelegation(id, payload));
    expect(await job.isCompleted()).toBe(true);
    expect(job.attemptsMade).toBe(1);
    expect((job.returnvalue as OutcomeMessage).payload).toMatchObject({ status: 'failed', error_type: errorType, recoverable: false });
  });
});
