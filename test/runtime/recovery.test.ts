import type { TierSlug } from '@tierflow/protocol';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import { controlKeys } from '@tierflow/runtime/admin';
import { redisClient, waitFor } from '@tierflow/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';

const TIERS: readonly TierSlug[] = ['monitor', 'architect', 'dispatcher', 'fleet'];

// Short locks, so a crashed worker's jobs are reclaimed in about lock + stalled interval (3 s).
const FAST_RECLAIM = { TIERFLOW_LOG: 'silent', TIERFLOW_LOCK_DURATION_MS: '2000', TIERFLOW_STALLED_INTERVAL_MS: '1000' };

let deployment: Deployment | undefined;
const extra: TierProcesses[] = [];

afterEach(async () => {
  await Promise.all(extra.splice(0).map((processes) => processes.stop()));
  await deployment?.stop();
  deployment = undefined;
});

/** Starts replacement workers for the given tiers, as an operator (or a supervisor) would. */
async function restart(current: Deployment, tiers: readonly TierSlug[]): Promise<void> {
  let ready = 0;
  const processes = spawnTiers(
    { ...process.env, ...FAST_RECLAIM, OTEL_TRACES_EXPORTER: 'none', REDIS_URL: current.redis.url, TIERFLOW_PREFIX: current.runtime.prefix },
    (_tier, line) => {
      if (line.includes('worker ready')) ready++;
    },
    tiers,
  );
  extra.push(processes);
  await waitFor(() => ready === tiers.length, { description: 'replacement workers' });
}

describe('crash recovery', () => {
  it('after kill -9 of the Fleet and the Dispatcher mid-run, their work is reclaimed and the root still succeeds', async () => {
    deployment = await startDeployment('crash', FAST_RECLAIM);
    const { client } = deployment;
    const rootId = await client.enqueue(simPlan('all_success', [{ delay_ms: 2_000 }, { delay_ms: 2_000 }]));
    await waitFor(
      async () => {
        const tree = await client.tree(rootId);
        return tree && treeNodes(tree, 'SPECIALIZED_FLEET').filter((node) => node.status === 'running').length === 2;
      },
      { description: 'both leaves running' },
    );

    for (const tier of ['fleet', 'dispatcher'] as const) deployment.tiers.children.get(tier)!.kill('SIGKILL');
    await restart(deployment, ['fleet', 'dispatcher']);
    // Timed from the replacements being ready, not from the kill: starting two processes on a busy
    // host can take seconds of its own, which says nothing of how fast work is reclaimed.
    const readyAt = Date.now();
    const outcome = await client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(outcome.payload.status).toBe('success');
    // Reclaimed within lock + stalled interval (3 s) plus the leaves' own 2 s of work: well inside
    // the 30 s a default lock would hold the dead workers' jobs for.
    expect(Date.now() - readyAt).toBeLessThan(15_000);
    const leaves = treeNodes((await client.tree(rootId))!, 'SPECIALIZED_FLEET');
    expect(leaves.map((leaf) => leaf.status)).toEqual(['success', 'success']);
  }, 60_000);
});

describe('graceful shutdown', () => {
  it('SIGTERM lets a worker finish its running job before it exits, so nothing stalls', async () => {
    deployment = await startDeployment('sigterm', { TIERFLOW_LOG: 'silent' });
    const { client } = deployment;
    const rootId = await client.enqueue(simPlan('all_success', [{ delay_ms: 1_500 }]));
    await waitFor(
      async () => {
        const tree = await client.tree(rootId);
        return tree && treeNodes(tree, 'SPECIALIZED_FLEET')[0]?.status === 'running';
      },
      { description: 'the leaf running' },
    );
    const fleet = deployment.tiers.children.get('fleet')!;
    const exited = new Promise<number | null>((resolve) => fleet.once('exit', (code) => resolve(code)));
    fleet.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The leaf finished in the stopping worker, before it exited: no other Fleet worker runs.
    const leaf = treeNodes((await client.tree(rootId))!, 'SPECIALIZED_FLEET')[0]!;
    expect(leaf).toMatchObject({ status: 'success', attempts: 1 });
    expect((await client.waitForResult(rootId, { timeoutMs: 10_000 })).payload.status).toBe('success');
  }, 60_000);
});

describe('a Redis restart', () => {
  it('the workers reconnect by themselves and the run completes', async () => {
    deployment = await startDeployment('redis-restart', { TIERFLOW_LOG: 'silent' }, { redis: { appendOnly: true, args: ['--appendfsync', 'always'] } });
    const { client } = deployment;
    const rootId = await client.enqueue(simPlan('all_success', [{ delay_ms: 1_500 }, { delay_ms: 1_500 }, { delay_ms: 1_500 }]));
    await waitFor(
      async () => {
        const tree = await client.tree(rootId);
        return tree && treeNodes(tree, 'SPECIALIZED_FLEET').filter((node) => node.status === 'running').length === 3;
      },
      { description: 'the leaves running' },
    );
    await deployment.redis.restart();
    const outcome = await client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(outcome.payload.status).toBe('success');
  }, 60_000);
});

describe('retention', () => {
  it('a parent that waits longer than finished jobs are kept still resumes from its own state, delegating once', async () => {
    // Finished jobs kept 1 s, leaves that take 2.5 s: the parents' records of unfinished work must outlive both.
    deployment = await startDeployment('retention', { TIERFLOW_LOG: 'silent', TIERFLOW_KEEP_FINISHED_MS: '1000', TIERFLOW_TRACK_COMPLETIONS: '1' });
    const { client, runtime } = deployment;
    const rootId = await client.enqueue(simPlan('all_success', [{ delay_ms: 2_500 }, { delay_ms: 2_500 }]));
    const outcome = await client.waitForResult(rootId, { timeoutMs: 30_000 });
    expect(outcome.payload.status).toBe('success');
    const redis = redisClient(deployment.redis.url);
    try {
      const finished = await redis.keys(`${runtime.prefix}:beads:execution/finished/*`);
      const duplicates = await redis.keys(`${runtime.prefix}:beads:execution/duplicates/*`);
      expect({ finished: finished.length, duplicates: duplicates.length }).toEqual({ finished: 2, duplicates: 0 });
      // A parent that lost its state would delegate again and leave a second watchdog behind.
      await waitFor(async () => (await Promise.all(TIERS.map((tier) => redis.zcard(controlKeys(runtime.prefix).watchdogs(tier))))).every((count) => count === 0), {
        timeoutMs: 15_000,
        description: 'no watchdog left',
      });
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});
