import { TIER_SLUGS } from '@tierflow/protocol';
import { controlKeys, readAuditTrail } from '@tierflow/runtime/admin';
import { type RunNode } from '@tierflow/runtime';
import { redisClient, waitFor } from '@tierflow/testing';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';

/**
 * What anyone who can write the deployment's Redis may leave where a worker reads: every value is
 * parsed before use, and one that cannot be used is logged with its key and handled (ignored, or
 * its job answers `failed`) rather than ending a process or leaving a run waiting.
 */

const ids = (root: string) => ({ architect: `${root}.0-0`, dispatcher: `${root}.0-0.0-0`, leaf: (index: number) => `${root}.0-0.0-0.0-${index}` });

async function treeWhen(deployment: Deployment, rootId: string, test: (tree: RunNode) => boolean, description: string): Promise<RunNode> {
  return waitFor(
    async () => {
      const tree = await deployment.client.tree(rootId);
      return tree && test(tree) ? tree : null;
    },
    { timeoutMs: 15_000, description },
  );
}

function everyWorkerAlive(deployment: Deployment): void {
  const exited = [...deployment.tiers.children].filter(([, child]) => child.exitCode !== null || child.signalCode !== null).map(([tier]) => tier);
  expect(exited, `workers that exited; output:\n${deployment.logs.join('\n')}`).toEqual([]);
}

describe('hostile values in Redis, with every tier running', () => {
  let deployment: Deployment;
  let redis: Redis;

  beforeAll(async () => {
    deployment = await startDeployment('hostile');
    redis = redisClient(deployment.redis.url);
  }, 60_000);

  afterAll(async () => {
    redis?.disconnect();
    await deployment?.stop();
  });

  it('malformed notices on the control channel stop no worker, and are reported', async () => {
    const { channel } = controlKeys(deployment.runtime.prefix);
    const fixed = [
      'null',
      '42',
      '"cancel"',
      '[]',
      '{',
      JSON.stringify({ kind: 'cancel', ids: 'x', reason: 1, status: 'cancelled' }),
      JSON.stringify({ kind: 'cancel', ids: [null], reason: 'x', status: 'x' }),
    ];
    const fuzzed = fc.sample(
      fc.oneof(
        fc.string(),
        fc.json(),
        fc.record({ kind: fc.constant('cancel'), ids: fc.anything(), reason: fc.anything(), status: fc.anything() }).map((v) => JSON.stringify(v)),
      ),
      200,
    );
    for (const text of [...fixed, ...fuzzed]) await redis.spublish(channel, text);
    // A notice published after the junk is heard by every process, so the junk has been handled by then.
    await redis.spublish(channel, JSON.stringify({ kind: 'cancel', ids: ['nothing-running'], reason: 'probe', status: 'cancelled' }));
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}]));
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 15_000 })).payload.status).toBe('success');
    everyWorkerAlive(deployment);
    expect(deployment.logs.some((line) => line.includes('dropped a malformed notice'))).toBe(true);
  });

  it('a well-formed notice without a durable mark stops nothing: the running leaf finishes', async () => {
    const rootId = 'hostile-notice-1';
    await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 1_500 }]), { rootId });
    await treeWhen(deployment, rootId, (tree) => treeNodes(tree, 'SPECIALIZED_FLEET')[0]?.status === 'running', 'the leaf running');
    const { channel } = controlKeys(deployment.runtime.prefix);
    await redis.spublish(channel, JSON.stringify({ kind: 'cancel', ids: [ids(rootId).leaf(0)], reason: 'forged', status: 'cancelled' }));
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 15_000 })).payload.status).toBe('success');
  });

  it('junk where a cancellation mark, a timeout record or a cached answer would be is ignored and logged with its key', async () => {
    const rootId = 'hostile-junk-1';
    const { prefix } = deployment.runtime;
    const keys = controlKeys(prefix);
    const run = ids(rootId);
    const junk = {
      [keys.cancel('dispatcher', run.leaf(0))]: 'null',
      [keys.timeout('architect', run.dispatcher)]: '{"kind":"timeout"',
      [`${prefix}:beads:system/seen-messages/${TIER_SLUGS.ABSTRACT_ARCHITECT}/${run.architect}`]: '{"payload":{"status":"success"}}',
    };
    for (const [key, value] of Object.entries(junk)) await redis.set(key, value);
    await deployment.client.enqueue(simPlan('all_success', [{}]), { rootId });
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 15_000 })).payload.status).toBe('success');
    for (const key of Object.keys(junk))
      expect(
        deployment.logs.some((line) => line.includes('ignored a') && line.includes(key)),
        key,
      ).toBe(true);
  });

  it('a parent whose step state is corrupted while it waits answers failed (corrupt_record), and the run ends', async () => {
    const rootId = 'hostile-step-1';
    await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 1_500 }]), { rootId });
    await treeWhen(deployment, rootId, (tree) => treeNodes(tree, 'ROUTING_DISPATCHER')[0]?.status === 'waiting_for_children', 'the Dispatcher waiting for its child');
    const stepKey = controlKeys(deployment.runtime.prefix).step('dispatcher', ids(rootId).dispatcher);
    await redis.set(stepKey, '{"round": "not a number"');
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 15_000 });
    expect(outcome.payload.status).toBe('failed');
    const trail = await readAuditTrail(redis, deployment.runtime.prefix, rootId);
    expect(trail.find((entry) => entry.from === 'ROUTING_DISPATCHER' && entry.kind === 'outcome' && entry.direction === 'sent')).toMatchObject({ status: 'failed', detail: 'corrupt_record' });
    expect(deployment.logs.some((line) => line.includes(stepKey))).toBe(true);
    everyWorkerAlive(deployment);
  });

  it("a child's answer that is not JSON is read as that child's failed outcome, not a crash (and the Architect's revision runs it again)", async () => {
    const rootId = 'hostile-value-1';
    await deployment.client.enqueue(simPlan('all_success', [{}, { delay_ms: 1_500 }]), { rootId });
    await treeWhen(deployment, rootId, (tree) => treeNodes(tree, 'SPECIALIZED_FLEET')[0]?.status === 'success', 'the first leaf done');
    const run = ids(rootId);
    const processed = `${deployment.runtime.prefix}:dispatcher:${run.dispatcher}:processed`;
    await redis.hset(processed, `${deployment.runtime.prefix}:fleet:${run.leaf(0)}`, '{"not json');
    await deployment.client.waitForResult(rootId, { timeoutMs: 15_000 });
    const trail = await readAuditTrail(redis, deployment.runtime.prefix, rootId);
    const received = trail.find((entry) => entry.by === 'ROUTING_DISPATCHER' && entry.kind === 'outcome' && entry.direction === 'received' && entry.correlation_id === run.leaf(0));
    expect(received).toMatchObject({ status: 'failed', detail: 'job_failed' });
    everyWorkerAlive(deployment);
  });

  it('malformed watchdog entries are dropped and logged', async () => {
    const key = controlKeys(deployment.runtime.prefix).watchdogs('dispatcher');
    const members = ['garbage', '1|NOT_A_TIER|some-id', '1|ROUTING_DISPATCHER|', 'x|ROUTING_DISPATCHER|some-id'];
    for (const member of members) await redis.zadd(key, 0, member);
    await waitFor(async () => (await Promise.all(members.map((member) => redis.zscore(key, member)))).every((score) => score === null), {
      timeoutMs: 10_000,
      description: 'the malformed entries dropped',
    });
    expect(deployment.logs.some((line) => line.includes('dropped a malformed watchdog entry'))).toBe(true);
    everyWorkerAlive(deployment);
  });
});

describe('hostile values in Redis, with no Fleet worker', () => {
  let deployment: Deployment;
  let redis: Redis;

  beforeAll(async () => {
    deployment = await startDeployment('hostile-nofleet', {}, { tiers: ['monitor', 'architect', 'dispatcher'] });
    redis = redisClient(deployment.redis.url);
  }, 60_000);

  afterAll(async () => {
    redis?.disconnect();
    await deployment?.stop();
  });

  it('a parked parent whose step state is corrupt is let go by its watchdog, and answers failed instead of waiting for ever', async () => {
    const rootId = 'hostile-watch-1';
    await deployment.client.enqueue(simPlan('all_success', [{}], { timeout_ms: 1_000 }), { rootId });
    await treeWhen(deployment, rootId, (tree) => treeNodes(tree, 'ROUTING_DISPATCHER')[0]?.status === 'waiting_for_children', 'the Dispatcher waiting for its child');
    await redis.set(controlKeys(deployment.runtime.prefix).step('dispatcher', ids(rootId).dispatcher), 'junk');
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('failed');
    const trail = await readAuditTrail(redis, deployment.runtime.prefix, rootId);
    expect(trail.find((entry) => entry.from === 'ROUTING_DISPATCHER' && entry.kind === 'outcome' && entry.direction === 'sent')).toMatchObject({ detail: 'corrupt_record' });
  });
});
