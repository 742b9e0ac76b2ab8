import { BeadsStore } from '@tierflow/beads';
import type { OutcomeMessage } from '@tierflow/protocol';
import { buildDelegation, jobOptions } from '@tierflow/runtime/admin';
import { TierflowClient, type ObjectiveFile } from '@tierflow/runtime';
import { redisClient, waitFor } from '@tierflow/testing';
import { QueueEvents } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { useDeployment } from '../support/shared-deployment.js';
import { runToEnd, simPlan, treeNodes } from '../support/runs.js';

// Four worker processes on a private Redis, driven as a user drives them: objectives in, outcomes
// out. Runs here do not wait for a person (test/runtime/clarification.test.ts has those).
const shared = useDeployment('four-tiers', { TIERFLOW_LOG: 'silent', TIERFLOW_ANSWER_WAIT_MS: '0' });

type Sim = Record<string, unknown>;

const run = (objective: ObjectiveFile) => runToEnd(shared.deployment.client, objective);

const ok = (confidence = 0.9): Sim => ({ confidence });
const failed: Sim = { status: 'failed' };

describe('one objective through four worker processes', () => {
  it('is a tree of four tiers whose root outcome comes up from the Architect to the Monitor', async () => {
    const { id, outcome, tree } = await run(simPlan('all_success', [ok()]));
    expect(outcome).toMatchObject({ source_tier: 'ABSTRACT_ARCHITECT', target_tier: 'PROGRESS_MONITOR', payload: { status: 'success' } });
    expect(tree).toMatchObject({ id, tier: 'PROGRESS_MONITOR', status: 'success' });
    expect(treeNodes(tree, 'ABSTRACT_ARCHITECT')).toHaveLength(1);
    expect(treeNodes(tree, 'ROUTING_DISPATCHER')).toHaveLength(1);
    expect(treeNodes(tree, 'SPECIALIZED_FLEET')).toMatchObject([{ specialist: 'sim', status: 'success', attempts: 1 }]);
  });

  it.each([
    ['all_success', [ok(), ok(), ok()], 'success'],
    ['all_success', [ok(), ok(), failed], 'partial'],
    ['all_success', [failed, failed, failed], 'failed'],
    ['any_success', [failed, ok(), failed], 'success'],
    ['any_success', [failed, failed], 'failed'],
    ['majority', [ok(), ok(), failed], 'success'],
    ['majority', [ok(), failed], 'partial'],
    ['first_success', [ok(), ok(), ok()], 'success'],
  ])('%s over %j ends %s', async (strategy, sims, status) => {
    const { outcome, tree } = await run(simPlan(strategy, sims));
    expect(outcome.payload.status).toBe(status);
    const summary = outcome.payload.artifacts.find((artifact) => artifact.artifact_type === 'aggregation_summary');
    expect(summary?.metadata).toMatchObject({ aggregated_outcome: { strategy_used: strategy } });
    expect(treeNodes(tree, 'SPECIALIZED_FLEET').length).toBeGreaterThanOrEqual(sims.length);
  });

  it('retries a transient failure: a sim that fails twice succeeds on its third attempt', async () => {
    const { outcome, tree } = await run(simPlan('all_success', [{ fail_times: 2 }]));
    expect(outcome.payload.status).toBe('success');
    expect(treeNodes(tree, 'SPECIALIZED_FLEET')).toMatchObject([{ status: 'success', attempts: 3 }]);
  });

  it('fails a permanent error at once, not retried, with recoverable false', async () => {
    const { outcome, tree } = await run(simPlan('all_success', [{ permanent_error: true }]));
    expect(outcome.payload).toMatchObject({ status: 'failed' });
    const [leaf] = treeNodes(tree, 'SPECIALIZED_FLEET');
    expect(leaf).toMatchObject({ status: 'failed', attempts: 1 });
    const leafOutcome = (await shared.fleet.getJob(leaf!.id))?.returnvalue as OutcomeMessage;
    expect(leafOutcome.payload).toMatchObject({ status: 'failed', recoverable: false, error_type: 'sim_permanent' });
  });

  it('re-routes an unavailable specialist to its alternate', async () => {
    const { outcome, tree } = await run(simPlan('all_success', [ok()], { specialist_hint: 'gpu-lora' }));
    expect(outcome.payload.status).toBe('success');
    expect(treeNodes(tree, 'SPECIALIZED_FLEET').map((node) => [node.specialist, node.status])).toEqual([
      ['gpu-lora', 'failed'],
      ['sim', 'success'],
    ]);
  });

  it('revises the strategy once when the majority failed, then reports', async () => {
    const { outcome, tree } = await run(simPlan('all_success', [ok(), failed, failed]));
    expect(outcome.payload.status).toBe('partial');
    expect(outcome.payload.resources_used).toMatchObject({ revisions: 1 });
    const dispatches = treeNodes(tree, 'ROUTING_DISPATCHER');
    expect(dispatches).toHaveLength(2);
    // The revision re-delegates only the two subtasks that failed.
    expect(dispatches[1]!.children).toHaveLength(2);
  });

  it('passes a clarification up unchanged, never guessing, and with waits off ends the run with it', async () => {
    const question = 'Should an empty array return -1 or raise?';
    const { id, outcome } = await run(simPlan('all_success', [{ status: 'needs_clarification', question }]));
    expect(outcome.payload).toMatchObject({
      status: 'needs_clarification',
      error_detail: expect.stringContaining(question) as unknown,
      questions: [{ id: `${id}.0-0.0-0.0-0.out`, question, tier: 'SPECIALIZED_FLEET' }],
    });
  });

  it('carries a 2 KB artifact as a Beads reference and a 100-byte one inline', async () => {
    const { outcome } = await run(simPlan('all_success', [{ output_bytes: 2048 }, { output_bytes: 100 }]));
    const texts = outcome.payload.artifacts.filter((artifact) => artifact.artifact_type === 'text');
    const byRef = texts.find((artifact) => artifact.content_ref !== null);
    const inline = texts.find((artifact) => artifact.inline_content !== null);
    expect(inline?.inline_content).toHaveLength(100);
    expect(byRef?.content_ref).toMatch(/^beads:execution\/outputs\//);
    const beads = new BeadsStore(shared.redis, { tier: 'PROGRESS_MONITOR', prefix: shared.deployment.runtime.prefix });
    expect(await beads.get<string>(byRef!.content_ref!)).toHaveLength(2048);
  });
});

describe('de-duplication', () => {
  it('runs the handler once for a message delivered twice, answering the second from the cache', async () => {
    const prefix = shared.deployment.runtime.prefix;
    const eventsConnection = redisClient(shared.deployment.redis.url);
    const events = new QueueEvents('fleet', { connection: eventsConnection, prefix });
    await events.waitUntilReady();
    try {
      const message = buildDelegation('ROUTING_DISPATCHER', 'dup-check-1', null, { task_type: 'general', objective: 'once', specialist_hint: 'sim' }, Date.now());
      const first = await shared.fleet.add('general', message, jobOptions(message.id, 2, shared.deployment.runtime));
      const firstOutcome = (await first.waitUntilFinished(events, 10_000)) as OutcomeMessage;
      const log = await shared.redis.get(`${prefix}:beads:execution/logs/${message.id}`);
      // Deliver the same message again, as a redelivery after the first job was cleaned up would.
      await first.remove();
      const second = await shared.fleet.add('general', message, jobOptions(message.id, 2, shared.deployment.runtime));
      const secondOutcome = (await second.waitUntilFinished(events, 10_000)) as OutcomeMessage;
      expect(secondOutcome).toEqual(firstOutcome);
      // The handler did not run again: its execution log is the first run's.
      expect(await shared.redis.get(`${prefix}:beads:execution/logs/${message.id}`)).toBe(log);
    } finally {
      await events.close();
      eventsConnection.disconnect();
    }
  });
});

describe('waiting for results', () => {
  it('settles roots the client enqueued while listening, and one that ended before anyone asked', async () => {
    const { runtime } = shared.deployment;
    const client = new TierflowClient(runtime);
    try {
      const first = await client.enqueue(simPlan('all_success', [ok()]));
      await client.waitForResult(first, { timeoutMs: 20_000 }); // starts the listener
      const ids = await Promise.all([0, 1, 2].map(() => client.enqueue(simPlan('all_success', [ok()]))));
      const outcomes = await Promise.all(ids.map((id) => client.waitForResult(id, { timeoutMs: 20_000 })));
      expect(outcomes.map((outcome) => outcome.payload.status)).toEqual(['success', 'success', 'success']);

      // Finished before anyone waited: its end was heard with no waiter, so waiting looks it up.
      const late = await client.enqueue(simPlan('all_success', [ok()]));
      await waitFor(() => client.result(late), { timeoutMs: 20_000, description: `root ${late} finished` });
      const outcome = await client.waitForResult(late, { timeoutMs: 5_000 });
      expect(outcome.payload.status).toBe('success');
    } finally {
      await client.close();
    }
  });
});
