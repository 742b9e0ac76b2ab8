import type { ObjectiveFile } from '@tierflow/runtime';
import { readNodeView } from '@tierflow/runtime/admin';
import { redisClient } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { runToEnd, simPlan, treeNodes } from '../support/runs.js';

// Handoff metadata (docs/protocol.md#handoff-metadata) over real processes: what Fleet leaves say
// of their work reaches the root aggregated, and a run that turns the cascade check off for its
// handoffs is not flagged where the deployment's check flags the same work.
let deployment: Deployment;
let redis: Redis;

beforeAll(async () => {
  deployment = await startDeployment('handoff-metadata', { TIERFLOW_LOG: 'silent' });
  redis = redisClient(deployment.redis.url);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await deployment?.stop();
});

/** Two leaves, one of them uncertain enough for the deployment's cascade check to flag. */
const objective = (extra: Partial<ObjectiveFile> = {}): ObjectiveFile => ({
  ...simPlan('all_success', [
    { confidence: 0.6, sources_count: 3, gaps: ['no prices'], data_freshness: '2026-02-28' },
    { confidence: 0.9, sources_count: 4, gaps: ['no prices', 'no churn'], assumptions: ['2025 market size'], data_freshness: '2025-11-01' },
  ]),
  ...extra,
});
const aggregated = { sources_count: 7, gaps: ['no prices', 'no churn'], assumptions: ['2025 market size'], data_freshness: '2025-11-01' };

describe('handoff metadata', () => {
  it("flags uncertain work under the deployment's check, and carries the leaves' metadata to the root", async () => {
    const { outcome } = await runToEnd(deployment.client, objective());
    expect(outcome.payload).toMatchObject({ status: 'success', cascade_check: { action: 'flag_uncertainty' }, ...aggregated });
  });

  it('does not flag the same work when the run turns the check off for its handoffs, and hands its thread down', async () => {
    const { outcome, tree } = await runToEnd(deployment.client, objective({ thread_id: 'thread-43', handoff: { cascade_check: false } }));
    expect(outcome.payload).toMatchObject({ status: 'success', ...aggregated });
    expect(outcome.payload.cascade_check).toBeUndefined();
    const [leaf] = treeNodes(tree, 'SPECIALIZED_FLEET');
    const view = await readNodeView(redis, deployment.runtime.prefix, leaf!.id, deployment.runtime.signing);
    expect(view?.input).toMatchObject({ thread_id: 'thread-43', handoff: { cascade_check: false } });
  });
});
