import { redisClient, waitFor } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan } from '../support/runs.js';

// Redis turned into a replica (a failover gone wrong, an operator's REPLICAOF) refuses every write
// with READONLY. The workers say so, not once per refused command, and the runs go on afterwards.

let deployment: Deployment;
let redis: Redis;

beforeAll(async () => {
  // Locks that lapse while Redis refuses their renewal are reclaimed soon after it takes writes again.
  deployment = await startDeployment('read-only', { TIERFLOW_LOCK_DURATION_MS: '2000', TIERFLOW_STALLED_INTERVAL_MS: '1000' });
  redis = redisClient(deployment.redis.url);
}, 60_000);

afterAll(async () => {
  await redis?.replicaof('NO', 'ONE');
  redis?.disconnect();
  await deployment?.stop();
});

const refusals = (from: number) => deployment.logs.slice(from).filter((line) => line.includes('READONLY'));

it('logs a few lines per worker while Redis refuses writes, and every run is answered once it takes them again', async () => {
  const roots = await Promise.all([1, 2, 3].map(() => deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 1_500 }, { delay_ms: 1_500 }]))));
  await waitFor(async () => (await deployment.client.tree(roots[2]!))?.children.length || null, { description: 'the runs under way' });
  const from = deployment.logs.length;
  await redis.replicaof('127.0.0.1', 1);
  const refusedAt = Date.now();
  // Every tier's worker polls its queue several times a second: each poll is refused.
  await waitFor(() => (Date.now() - refusedAt >= 8_000 && new Set(refusals(from).map((line) => line.split(' | ')[0])).size === 4) || null, {
    timeoutMs: 20_000,
    description: 'eight seconds of refused writes, seen by every tier',
  });
  const perTier = new Map<string, number>();
  for (const line of refusals(from)) perTier.set(line.split(' | ')[0]!, (perTier.get(line.split(' | ')[0]!) ?? 0) + 1);
  // Before: 60–80 lines per worker in eight seconds, one per refused poll.
  expect(Math.max(...perTier.values())).toBeLessThanOrEqual(6);
  await redis.replicaof('NO', 'ONE');
  const outcomes = await Promise.all(roots.map((root) => deployment.client.waitForResult(root, { timeoutMs: 30_000 })));
  expect(outcomes.map((outcome) => outcome.payload.status)).toEqual(['success', 'success', 'success']);
}, 60_000);
