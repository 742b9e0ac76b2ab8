import type { OutcomeMessage } from '@tierflow/protocol';
import { QUEUE_OF, type AuditRecord } from '@tierflow/runtime/admin';
import { type RunNode } from '@tierflow/runtime';
import { redisClient, waitFor } from '@tierflow/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierflow } from '../security/tier-processes.js';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';

// `tierflow status` shows every delegation a parent sent, whether or not its job ran or is still retained.

const env = (deployment: Deployment): NodeJS.ProcessEnv => ({ REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix });

async function status(deployment: Deployment, rootId: string): Promise<{ tree: RunNode; text: string }> {
  const json = await tierflow(['status', rootId, '--json'], env(deployment));
  expect(json, json.stderr).toMatchObject({ code: 0 });
  const text = await tierflow(['status', rootId], env(deployment));
  expect(text, text.stderr).toMatchObject({ code: 0 });
  return { tree: JSON.parse(json.stdout) as RunNode, text: text.stdout };
}

/** The delegations sent in a run, to `tier` or to every tier, by its audit trail: [id, tier]. */
async function delegations(deployment: Deployment, rootId: string, tier?: RunNode['tier']): Promise<[string, RunNode['tier']][]> {
  const result = await tierflow(['audit', rootId, '--json'], env(deployment));
  expect(result, result.stderr).toMatchObject({ code: 0 });
  const records = JSON.parse(result.stdout) as AuditRecord[];
  return records.filter((record) => record.kind === 'delegation' && record.direction === 'sent' && (!tier || record.to === tier)).map((record) => [record.id, record.to as RunNode['tier']]);
}

async function answered(deployment: Deployment, rootId: string): Promise<OutcomeMessage> {
  return deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
}

describe('tierflow status without a Fleet worker', () => {
  let deployment: Deployment;

  beforeAll(async () => {
    deployment = await startDeployment('status-no-fleet', { TIERFLOW_LOG: 'silent' }, { tiers: ['monitor', 'architect', 'dispatcher'] });
  }, 60_000);

  afterAll(async () => {
    await deployment?.stop();
  });

  it('shows every Fleet delegation the watchdog gave up on, with status timeout, in text and JSON', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}, {}], { timeout_ms: 1500 }));
    expect((await answered(deployment, rootId)).payload.status).not.toBe('success');
    const sent = (await delegations(deployment, rootId, 'SPECIALIZED_FLEET')).map(([id]) => id);
    expect(sent.length).toBeGreaterThanOrEqual(2);

    const { tree, text } = await status(deployment, rootId);
    const leaves = treeNodes(tree, 'SPECIALIZED_FLEET');
    expect(leaves.map((leaf) => leaf.id).sort()).toEqual([...sent].sort());
    for (const leaf of leaves) {
      // No worker ever took the job: it still waits in the queue, detached from its parent.
      expect(leaf).toMatchObject({ status: 'timeout', source: 'parent', queue_state: 'waiting', confidence: 0, attempts: 0, started_at: null, children: [] });
    }
    // Each leaf under the Dispatcher that sent it.
    for (const dispatcher of treeNodes(tree, 'ROUTING_DISPATCHER')) {
      expect(dispatcher.source).toBe('outcome');
      for (const leaf of dispatcher.children) expect(leaf.id.startsWith(`${dispatcher.id}.`)).toBe(true);
    }
    for (const id of sent) expect(text).toMatch(new RegExp(`fleet\\s+${id.replaceAll('.', '\\.')}\\s+general\\s+sim\\s+timeout\\s+0\\.00\\s+\\(recorded by its parent; job still queued\\)`));
  }, 90_000);
});

describe('tierflow status once finished jobs are no longer retained', () => {
  let deployment: Deployment;

  beforeAll(async () => {
    // Finished jobs are kept one second; BullMQ removes them as later jobs of their queue finish.
    deployment = await startDeployment('status-retention', { TIERFLOW_LOG: 'silent', TIERFLOW_KEEP_FINISHED_MS: '1000' });
  }, 60_000);

  afterAll(async () => {
    await deployment?.stop();
  });

  it('shows every node of the run from its audit trail, as it showed them while they were retained', async () => {
    // One leaf succeeds; the other runs past its deadline and answers timeout itself.
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ confidence: 0.8 }, { delay_ms: 20_000 }], { timeout_ms: 1500 }));
    expect((await answered(deployment, rootId)).payload.status).not.toBe('success');
    const nodes: [string, RunNode['tier']][] = [[rootId, 'PROGRESS_MONITOR'], ...(await delegations(deployment, rootId))];
    const redis = redisClient(deployment.redis.url);
    const queues = new Map(Object.entries(QUEUE_OF).map(([tier, name]) => [tier, new Queue(name, { connection: redis, prefix: deployment.runtime.prefix })]));
    const jobs = () => Promise.all(nodes.map(([id, tier]) => queues.get(tier)!.getJob(id)));
    try {
      // The leaf that timed out answers a moment after its parent let go of it.
      await waitFor(async () => (await jobs()).every((job) => !job || job.finishedOn), { timeoutMs: 30_000, intervalMs: 200, description: 'every job of the run to finish' });
      const before = (await deployment.client.tree(rootId))!;

      // Later runs finish jobs in every queue, which removes this run's.
      await waitFor(
        async () => {
          await answered(deployment, await deployment.client.enqueue(simPlan('all_success', [{}])));
          return (await jobs()).every((job) => job === undefined);
        },
        { timeoutMs: 30_000, intervalMs: 200, description: "the run's jobs to be removed" },
      );

      const { tree, text } = await status(deployment, rootId);
      const shape = (node: RunNode) => ({ id: node.id, tier: node.tier, task_type: node.task_type, status: node.status, confidence: node.confidence, attempts: node.attempts });
      expect(treeNodes(tree).map(shape)).toEqual(treeNodes(before).map(shape));
      expect(treeNodes(tree).map((node) => [node.id, node.tier])).toEqual(expect.arrayContaining(nodes));
      expect(treeNodes(tree)).toHaveLength(nodes.length);
      for (const node of treeNodes(tree)) {
        expect(node).toMatchObject({ queue_state: null, source: 'outcome' });
        expect(node.started_at).not.toBeNull();
        expect(node.finished_at).not.toBeNull();
      }
      expect(treeNodes(tree, 'SPECIALIZED_FLEET')[0]).toMatchObject({ status: 'success', confidence: 0.8 });
      expect(treeNodes(tree, 'SPECIALIZED_FLEET').map((leaf) => leaf.status)).toContain('timeout');
      expect(text.trimEnd().split('\n')).toHaveLength(nodes.length);
      expect(text).toMatch(new RegExp(`fleet\\s+${rootId}\\.0-0\\.0-0\\.0-0\\s+general\\s+success\\s+0\\.80`));
    } finally {
      await Promise.all([...queues.values()].map((queue) => queue.close()));
      redis.disconnect();
    }
  }, 120_000);

  it('says so for a root neither the queues nor the audit trail know', async () => {
    const result = await tierflow(['status', 'no-such-root'], env(deployment));
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain('no run no-such-root');
  });
});
