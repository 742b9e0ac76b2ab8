import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import type { OutcomeMessage } from '@tierflow/protocol';
import type { RunNode } from '@tierflow/runtime';
import { redisClient, waitFor } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'cli', 'bin', 'tierflow.js');

async function treeWhen(deployment: Deployment, rootId: string, test: (tree: RunNode) => boolean, description: string): Promise<RunNode> {
  return waitFor(
    async () => {
      const tree = await deployment.client.tree(rootId);
      return tree && test(tree) ? tree : null;
    },
    { timeoutMs: 15_000, description },
  );
}

describe('cancellation, first_success and timeouts across worker processes', () => {
  let deployment: Deployment;
  let redis: Redis;

  beforeAll(async () => {
    // A long retry backoff, so a failing leaf sits delayed for its retry while we cancel; eight
    // jobs a worker, so some leaves wait for the Fleet.
    deployment = await startDeployment('cancel', { TIERFLOW_LOG: 'silent', TIERFLOW_RETRY_BASE_MS: '30000', TIERFLOW_RETRY_MAX_MS: '30000', TIERFLOW_CONCURRENCY: '8' });
    redis = redisClient(deployment.redis.url);
  }, 60_000);

  afterAll(async () => {
    redis?.disconnect();
    await deployment?.stop();
  });

  it('cancels a whole tree, leaves in every state, from the tierflow command', async () => {
    // One leaf fails at once and waits 15-30 s for its retry; ten run for a minute, eight at a
    // time (the Fleet's concurrency here), so two wait; the parents wait for their children.
    const sims = [{ fail_times: 5 }, ...Array.from({ length: 10 }, () => ({ delay_ms: 60_000 }))];
    const rootId = await deployment.client.enqueue(simPlan('all_success', sims));
    const before = await treeWhen(
      deployment,
      rootId,
      (tree) => {
        const states = treeNodes(tree, 'SPECIALIZED_FLEET').map((node) => node.queue_state);
        const parents = treeNodes(tree).filter((node) => node.tier !== 'SPECIALIZED_FLEET');
        return (
          states.filter((state) => state === 'active').length === 8 &&
          states.includes('delayed') &&
          states.filter((state) => state === 'prioritized' || state === 'waiting').length === 2 &&
          parents.every((node) => node.status === 'waiting_for_children')
        );
      },
      'leaves active, delayed and waiting, parents waiting for children',
    );
    expect(treeNodes(before)).toHaveLength(14);

    const started = Date.now();
    const cli = spawnSync(process.execPath, [BIN, 'cancel', rootId, '--reason', 'operator changed their mind'], {
      env: { ...process.env, REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix },
      encoding: 'utf8',
    });
    expect(cli.stdout).toContain(`cancelling ${rootId} (PROGRESS_MONITOR) and 13 unfinished descendants`);
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    const elapsed = Date.now() - started;
    expect(outcome.payload).toMatchObject({ status: 'cancelled', error_detail: 'operator changed their mind' });
    // Well short of the minute the leaves would run, with room for a slow host to start the command
    // (its latency is measured by `npm run bench`, not here).
    expect(elapsed).toBeLessThan(20_000);

    const after = await deployment.client.tree(rootId);
    expect(treeNodes(after!).map((node) => node.status)).toEqual(Array(14).fill('cancelled'));
    // No handler ran to the end, before or after: the Fleet writes an execution log when one does.
    for (const leaf of treeNodes(after!, 'SPECIALIZED_FLEET')) {
      expect(await redis.exists(`${deployment.runtime.prefix}:beads:execution/logs/${leaf.id}`)).toBe(0);
    }
  });

  it('with --no-cascade, answers at once and leaves the children running', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 1_500 }, { delay_ms: 1_500 }]));
    const tree = await treeWhen(deployment, rootId, (t) => treeNodes(t, 'SPECIALIZED_FLEET').filter((n) => n.status === 'running').length === 2, 'both leaves active');
    const dispatcher = treeNodes(tree, 'ROUTING_DISPATCHER')[0]!;
    const leafIds = treeNodes(tree, 'SPECIALIZED_FLEET').map((node) => node.id);

    const report = await deployment.client.cancel(dispatcher.id, { cascade: false, reason: 'just this one' });
    expect(report).toMatchObject({ outcome: 'cancelled', nodes: [dispatcher.id] });
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 10_000 });
    expect(outcome.payload.status).toBe('cancelled');

    const fleet = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    try {
      expect(await Promise.all(leafIds.map(async (id) => (await fleet.getJob(id))?.getState()))).toEqual(['active', 'active']);
      const finished = await waitFor(
        async () => {
          const jobs = await Promise.all(leafIds.map((id) => fleet.getJob(id)));
          return jobs.every((job) => job?.finishedOn) ? jobs : null;
        },
        { description: 'the detached leaves to finish' },
      );
      expect(finished.map((job) => (job!.returnvalue as OutcomeMessage).payload.status)).toEqual(['success', 'success']);
    } finally {
      await fleet.close();
    }
  });

  it('first_success: the first to succeed wins, the others are cancelled, the parent resumes at once', async () => {
    const started = Date.now();
    const rootId = await deployment.client.enqueue(simPlan('first_success', [{ delay_ms: 50 }, { delay_ms: 60_000 }, { delay_ms: 60_000 }]));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('success');
    // Not after the losers' minute of work: the winner's answer ends the race.
    expect(Date.now() - started).toBeLessThan(20_000);
    const tree = await deployment.client.tree(rootId);
    expect(treeNodes(tree!, 'SPECIALIZED_FLEET').map((node) => node.status)).toEqual(['success', 'cancelled', 'cancelled']);
    const summary = outcome.payload.artifacts.find((artifact) => artifact.artifact_type === 'aggregation_summary');
    expect((summary?.metadata as { child_outcomes: { status: string }[] }).child_outcomes.map((child) => child.status).sort()).toEqual(['cancelled', 'cancelled', 'success']);
  });

  it('a handler that never finishes answers timeout at about its timeout_ms', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 600_000 }], { timeout_ms: 1_000 }));
    // The timeout escalates like any recoverable failure (a revision, a reset), each try timing out again.
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('failed');
    const tree = await deployment.client.tree(rootId);
    const leaves = treeNodes(tree!, 'SPECIALIZED_FLEET');
    expect(leaves.map((node) => node.status)).toEqual(Array(leaves.length).fill('timeout'));
    const fleet = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    try {
      const first = await fleet.getJob(leaves[0]!.id);
      const answeredAfter = first!.finishedOn! - first!.timestamp;
      expect(answeredAfter).toBeGreaterThan(700);
      expect(answeredAfter).toBeLessThan(1_000);
    } finally {
      await fleet.close();
    }
  });

  it('cancelling finished work does nothing, and says so', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}]));
    await deployment.client.waitForResult(rootId, { timeoutMs: 10_000 });
    expect(await deployment.client.cancel(rootId)).toMatchObject({ outcome: 'finished', state: 'completed' });
    expect(await deployment.client.cancel('no-such-message')).toMatchObject({ outcome: 'unknown' });
  });
});

describe('a cancellation reaches every worker process of a tier', () => {
  let deployment: Deployment;
  let secondFleet: TierProcesses;

  beforeAll(async () => {
    deployment = await startDeployment('cancel-two-fleets', { TIERFLOW_LOG: 'silent', TIERFLOW_CONCURRENCY: '1' });
    let ready = false;
    secondFleet = spawnTiers(
      { ...process.env, REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix, TIERFLOW_LOG: 'silent', TIERFLOW_CONCURRENCY: '1' },
      (_tier, line) => {
        if (line.includes('worker ready')) ready = true;
      },
      ['fleet'],
    );
    await waitFor(() => ready, { description: 'the second fleet worker' });
  }, 60_000);

  afterAll(async () => {
    await secondFleet?.stop();
    await deployment?.stop();
  });

  it('aborts handlers running in both Fleet processes', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 60_000 }, { delay_ms: 60_000 }]));
    // One job each: each Fleet process runs one at a time.
    await treeWhen(deployment, rootId, (tree) => treeNodes(tree, 'SPECIALIZED_FLEET').every((node) => node.status === 'running'), 'both leaves active');
    const started = Date.now();
    await deployment.client.cancel(rootId);
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('cancelled');
    // Not after the leaves' minute of work: both handlers were aborted.
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe('with no Fleet worker running at all', () => {
  let deployment: Deployment;

  beforeAll(async () => {
    // The Fleet timeout comes from configuration here, not from the subtask.
    deployment = await startDeployment('no-fleet', { TIERFLOW_LOG: 'silent', TIERFLOW_FLEET_TIMEOUT_MS: '1000' }, { tiers: ['monitor', 'architect', 'dispatcher'] });
  }, 60_000);

  afterAll(async () => {
    await deployment?.stop();
  });

  it("the Dispatcher's watchdog records timeout for the child, and the run still ends", async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}]));
    // Each try waits for its deadline plus the grace; the revision and the reset try again.
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('failed');
    const summary = outcome.payload.artifacts.find((artifact) => artifact.artifact_type === 'aggregation_summary');
    expect((summary?.metadata as { child_outcomes: { status: string }[] }).child_outcomes.map((child) => child.status)).toEqual(['timeout']);
  });
});

describe('a specialist at its concurrency limit', () => {
  let deployment: Deployment;

  beforeAll(async () => {
    // sim admits one run at a time in the Fleet process.
    deployment = await startDeployment('throttled', { TIERFLOW_LOG: 'silent', TIERFLOW_SIM_MAX_CONCURRENT: '1' });
  }, 60_000);

  afterAll(async () => {
    await deployment?.stop();
  });

  it('answers throttled, and the Dispatcher backs off and tries again within the deadline', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 200 }, { delay_ms: 200 }, { delay_ms: 200 }], { timeout_ms: 10_000 }));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('success');
    const leaves = treeNodes((await deployment.client.tree(rootId))!, 'SPECIALIZED_FLEET');
    expect(leaves.filter((leaf) => leaf.status === 'throttled').length).toBeGreaterThan(0);
    expect(leaves.filter((leaf) => leaf.status === 'success')).toHaveLength(3);
  });
});
