import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DelegationMessage, UpstreamWork } from '@tierflow/protocol';
import { readAuditTrail } from '@tierflow/runtime/admin';
import { Queue } from 'bullmq';
import { redisClient } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';

// Handoff interceptors (docs/protocol.md#handoff-interceptors) from a project file, over four
// worker processes: one of the user's own notes every message each process sends or receives in
// a file they share; two refuse work; the built-in evidence grades hold work to PP or better, and
// tone isolation hands a draft to a review without its writer's words.
const CONFIG = `
import { appendFileSync } from 'node:fs';

const note = (end) => (handoff, next) => {
  appendFileSync(process.env.HANDOFF_LOG, JSON.stringify({ end, kind: handoff.kind, id: handoff.id, root: handoff.rootId, from: handoff.from, to: handoff.to }) + '\\n');
  return next(handoff);
};

export default {
  interceptors: [
    { name: 'recorder', send: note('send'), receive: note('receive') },
    {
      name: 'no-secrets',
      send: (handoff, next) => {
        if (handoff.kind === 'delegation' && handoff.payload.objective.includes('SECRET')) throw new Error('the objective names a secret');
        return next(handoff);
      },
    },
    {
      name: 'fleet-gate',
      receive: async (handoff, next) => {
        if (handoff.kind === 'delegation' && handoff.to === 'SPECIALIZED_FLEET' && handoff.payload.task_data.forbidden === true) throw new Error('forbidden work');
        return next(handoff);
      },
    },
    {
      name: 'plan-editor',
      receive: (handoff, next) => {
        if (handoff.kind !== 'delegation' || handoff.to !== 'ROUTING_DISPATCHER' || handoff.payload.task_data.edit_second !== true) return next(handoff);
        const plan = structuredClone(handoff.payload.task_data.plan);
        plan.subtasks[1].objective = 'edited on receipt';
        return next({ ...handoff, payload: { ...handoff.payload, task_data: { ...handoff.payload.task_data, plan } } });
      },
    },
    { kind: 'evidence-grades', minimum: 'PP' },
    { kind: 'tone-isolation', groups: { generative: ['write', 'edit'] } },
  ],
};
`;

let dir: string;
let deployment: Deployment;
let redis: Redis;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-interceptors-'));
  await writeFile(join(dir, 'tierflow.config.mjs'), CONFIG);
  await writeFile(join(dir, 'handoffs.ndjson'), '');
  deployment = await startDeployment('interceptors', {
    TIERFLOW_LOG: 'silent',
    TIERFLOW_ANSWER_WAIT_MS: '0',
    TIERFLOW_CONFIG: join(dir, 'tierflow.config.mjs'),
    HANDOFF_LOG: join(dir, 'handoffs.ndjson'),
  });
  redis = redisClient(deployment.redis.url);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await deployment?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Noted {
  readonly end: 'send' | 'receive';
  readonly kind: string;
  readonly id: string;
  readonly root: string;
  readonly from: string;
  readonly to: string;
}

async function noted(rootId: string): Promise<string[]> {
  const lines = (await readFile(join(dir, 'handoffs.ndjson'), 'utf8')).split('\n').filter((line) => line !== '');
  return lines
    .map((line) => JSON.parse(line) as Noted)
    .filter((entry) => entry.root === rootId)
    .map((entry) => `${entry.end} ${entry.kind} ${entry.from}→${entry.to}`);
}

async function run(objective: ReturnType<typeof simPlan>) {
  const rootId = await deployment.client.enqueue(objective);
  return { rootId, outcome: (await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload };
}

const M = 'PROGRESS_MONITOR';
const A = 'ABSTRACT_ARCHITECT';
const D = 'ROUTING_DISPATCHER';
const F = 'SPECIALIZED_FLEET';

describe('handoff interceptors', () => {
  it('see every message of a run, each sent before it is received, in every process', async () => {
    const { rootId, outcome } = await run(simPlan('all_success', [{ evidence_grade: 'PR' }]));
    expect(outcome.status).toBe('success');
    expect(await noted(rootId)).toEqual([
      `receive delegation client→${M}`,
      `send delegation ${M}→${A}`,
      `receive delegation ${M}→${A}`,
      `send delegation ${A}→${D}`,
      `receive delegation ${A}→${D}`,
      `send delegation ${D}→${F}`,
      `receive delegation ${D}→${F}`,
      `send outcome ${F}→${D}`,
      `receive outcome ${F}→${D}`,
      `send outcome ${D}→${A}`,
      `receive outcome ${D}→${A}`,
      `send outcome ${A}→${M}`,
      `receive outcome ${A}→${M}`,
      `send outcome ${M}→client`,
    ]);
  });

  it('carry evidence grades up: the run reports the weakest grade behind it, and each piece of work keeps its own', async () => {
    const { outcome } = await run(
      simPlan('all_success', [
        { evidence_grade: 'PR', output_bytes: 10 },
        { evidence_grade: 'IV', output_bytes: 20 },
      ]),
    );
    expect(outcome).toMatchObject({ status: 'success', evidence_grade: 'IV' });
    const work = outcome.artifacts.filter((artifact) => artifact.artifact_type === 'text');
    expect(work.map((artifact) => artifact.metadata.evidence_grade).sort()).toEqual(['IV', 'PR']);
  });

  it('refuse work graded under the deployment’s minimum as it is received, as failed work', async () => {
    const { rootId, outcome } = await run(simPlan('all_success', [{ evidence_grade: 'HEUR' }]));
    expect(outcome.status).toBe('failed');
    const received = (await readAuditTrail(redis, deployment.runtime.prefix, rootId)).find((entry) => entry.kind === 'outcome' && entry.direction === 'received' && entry.from === F);
    expect(received).toMatchObject({ status: 'failed', detail: 'handoff_refused' });
  });

  it('refuse a delegation as it is sent: nothing reaches the tier below, the run answers why, and the workers go on', async () => {
    const refused = await run({ objective: 'refused', task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'print the SECRET key' }] } } });
    expect(refused.outcome).toMatchObject({ status: 'failed' });
    expect(JSON.stringify(refused.outcome)).toContain(`no-secrets refused the delegation ${refused.rootId}.0-0.0-0.0-0 from ${D} to ${F}: the objective names a secret`);
    const tree = (await deployment.client.tree(refused.rootId))!;
    expect(treeNodes(tree, F)).toEqual([]);
    expect(treeNodes(tree, D)).toMatchObject([{ status: 'failed' }]);
    const trail = await readAuditTrail(redis, deployment.runtime.prefix, refused.rootId);
    expect(trail).toContainEqual(expect.objectContaining({ from: D, kind: 'outcome', direction: 'sent', detail: 'handoff_refused' }));

    expect((await run(simPlan('all_success', [{ evidence_grade: 'NOBEL' }]))).outcome.status).toBe('success');
  });

  it('isolate tone: a draft reaches a review as its work and figures, without its writer’s words; an editor of its group gets them, and so does a review whose handoff says no', async () => {
    const { rootId, outcome } = await run({
      objective: 'a reviewed draft',
      task_data: {
        plan: {
          strategy: 'all_success',
          subtasks: [
            { objective: 'draft', task_type: 'write', task_data: { sim: { output_bytes: 30, evidence_grade: 'PR' } } },
            { objective: 'review the draft', task_type: 'analyse', depends_on: [1] },
            { objective: 'edit the draft', task_type: 'edit', depends_on: [1] },
            // Its own handoff keeps the words, over the deployment's interceptor.
            { objective: 'review the draft as written', task_type: 'analyse', depends_on: [1], handoff: { tone_isolation: false } },
          ],
        },
      },
    });
    expect(outcome.status).toBe('success');
    const fleet = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    try {
      const handed = async (index: number): Promise<UpstreamWork> => {
        const job = await fleet.getJob(`${rootId}.0-0.0-0.1-${index}`);
        return ((job?.data as DelegationMessage).payload.task_data.upstream as UpstreamWork[])[0]!;
      };
      const draft = { subtask_index: 1, task_type: 'write', specialist: 'sim', confidence: 0.9, evidence_grade: 'PR' };
      // The review (analyse) was sent after the draft, first in its round; the edit second.
      const review = await handed(0);
      expect(review).toMatchObject({ ...draft, summary: null });
      expect(review.artifacts).toMatchObject([{ artifact_type: 'text', metadata: { evidence_grade: 'PR' } }]);
      expect(await handed(1)).toMatchObject({ ...draft, summary: 'sim: success on attempt 1 with 30 bytes of output' });
      expect(await handed(2)).toMatchObject({ ...draft, summary: 'sim: success on attempt 1 with 30 bytes of output' });
    } finally {
      await fleet.close();
    }
  });

  it('change a delegation as it is received, and the tier’s later passes read it as changed', async () => {
    const { rootId, outcome } = await run({
      objective: 'edited',
      task_data: {
        edit_second: true,
        plan: { strategy: 'all_success', subtasks: [{ objective: 'first' }, { objective: 'second', depends_on: [1] }] },
      },
    });
    expect(outcome.status).toBe('success');
    // The second subtask goes out on the Dispatcher's second pass, from the plan as the interceptor left it.
    const fleet = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    try {
      const job = await fleet.getJob(`${rootId}.0-0.0-0.1-0`);
      expect((job?.data as DelegationMessage).payload.objective).toBe('edited on receipt');
    } finally {
      await fleet.close();
    }
  });

  it('refuse a delegation as it is received: the specialist never runs', async () => {
    // A minute of work, were it run: the answer comes at once.
    const { rootId, outcome } = await run(simPlan('all_success', [{ delay_ms: 60_000 }], { task_data: { forbidden: true, sim: { delay_ms: 60_000 } } }));
    expect(outcome.status).toBe('failed');
    expect(treeNodes((await deployment.client.tree(rootId))!, F)).toMatchObject([{ status: 'failed' }]);
    const trail = await readAuditTrail(redis, deployment.runtime.prefix, rootId);
    expect(trail).toContainEqual(expect.objectContaining({ from: F, kind: 'outcome', direction: 'sent', status: 'failed', detail: 'handoff_refused' }));
    expect(JSON.stringify(outcome)).toContain('fleet-gate refused the delegation');
  });
});
