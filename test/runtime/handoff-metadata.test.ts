import type { DelegationMessage, UpstreamWork } from '@tierflow/protocol';
import type { ObjectiveFile } from '@tierflow/runtime';
import { Queue } from 'bullmq';
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
  it("isolates a review's upstream work where its own handoff asks, in a deployment without the interceptor", async () => {
    const { id, outcome } = await runToEnd(deployment.client, {
      objective: 'a reviewed draft',
      task_data: {
        plan: {
          strategy: 'all_success',
          subtasks: [
            { objective: 'draft', task_type: 'write', task_data: { sim: { output_bytes: 30 } } },
            { objective: 'review the draft', task_type: 'analyse', depends_on: [1], handoff: { tone_isolation: true } },
            { objective: 'review it as written', task_type: 'analyse', depends_on: [1] },
          ],
        },
      },
    });
    expect(outcome.payload.status).toBe('success');
    const fleet = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    try {
      // The reviews went in the second round, in plan order.
      const handed = async (index: number) => ((await fleet.getJob(`${id}.0-0.0-0.1-${index}`))?.data as DelegationMessage).payload.task_data.upstream as UpstreamWork[];
      expect((await handed(0))[0]).toMatchObject({ subtask_index: 1, task_type: 'write', summary: null });
      expect((await handed(1))[0]).toMatchObject({ subtask_index: 1, task_type: 'write', summary: 'sim: success on attempt 1 with 30 bytes of output' });
    } finally {
      await fleet.close();
    }
  });

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
