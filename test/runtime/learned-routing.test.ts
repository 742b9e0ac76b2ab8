import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { learningRecordsOf, type LearningRecord } from '@tierflow/core';
import { readAuditTrail, readHistoryReport } from '@tierflow/runtime/admin';
import { BeadsStore } from '@tierflow/beads';
import { redisClient } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { treeNodes } from '../support/runs.js';
import { tierflow } from '../security/tier-processes.js';

// Routing by measured results over the four tier processes. Two module specialists serve the task
// type `coin`: `poor` succeeds at a hidden rate of 0.2, `good` at 0.9, each drawing from a seeded
// sequence of its own. The routing table lists `poor` first, so the fixed table sends it all the
// work; learned routing must find `good`. A failure is final (not recoverable), so a root is one
// leaf attempt: its record says which specialist the Dispatcher chose.

const SPECIALISTS = `
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function coin(name, rate, seed) {
  const random = seeded(seed);
  return {
    name,
    version: '1.0.0',
    run: async () =>
      random() < rate
        ? { summary: name + ' got it', confidence: 0.8, artifacts: [{ artifact_type: 'text', content: name }] }
        : { status: 'failed', summary: name + ' got it wrong', confidence: 0.8, error_type: 'wrong_answer', recoverable: false },
  };
}
export default [coin('poor', 0.2, 11), coin('good', 0.9, 23)];
`;

const ROOTS = 24;
const plan = { strategy: 'all_success', subtasks: [{ objective: 'toss it', task_type: 'coin' }] } as const;

let project: string;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'tierflow-learned-routing-'));
  await mkdir(join(project, 'specialists'));
  await writeFile(join(project, 'specialists', 'coins.mjs'), SPECIALISTS);
});

afterAll(() => rm(project, { recursive: true, force: true }));

/** A deployment whose project file routes `coin` to [poor, good] in `mode`. */
async function deploymentIn(mode: 'learned' | 'shadow'): Promise<Deployment> {
  const config = join(project, `tierflow.${mode}.json`);
  await writeFile(config, JSON.stringify({ specialists: [{ kind: 'module', module: './specialists/coins.mjs' }], routing: { coin: ['poor', 'good'], mode, exploration: 0.1 } }));
  return startDeployment(`routing-${mode}`, { TIERFLOW_LOG: 'silent', TIERFLOW_CONFIG: config });
}

/** Runs the roots one after another, so each is routed by what the Monitor learned of those before; the leaf record of each. */
async function runRoots(deployment: Deployment): Promise<{ rootIds: string[]; records: LearningRecord[] }> {
  const rootIds: string[] = [];
  const records: LearningRecord[] = [];
  for (let i = 0; i < ROOTS; i++) {
    const rootId = await deployment.client.enqueue({ objective: `toss ${i}`, task_data: { plan } });
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
    const { records: leaves } = learningRecordsOf(outcome.payload);
    expect(leaves, `${outcome.payload.summary}\n${deployment.logs.join('\n')}`).toHaveLength(1);
    rootIds.push(rootId);
    records.push(leaves[0]!);
  }
  return { rootIds, records };
}

describe('learned routing, over the four tier processes', () => {
  let deployment: Deployment;

  beforeAll(async () => {
    deployment = await deploymentIn('learned');
  }, 60_000);

  afterAll(() => deployment?.stop());

  it('tries each candidate, then sends the work to the one that succeeds', async () => {
    const { records } = await runRoots(deployment);
    expect(records.every((record) => record.task_type === 'coin' && record.routing?.mode === 'learned')).toBe(true);
    // Untried candidates first, in table order.
    expect(records[0]).toMatchObject({ specialist: 'poor', routing: { reason: 'untried', fixed: 'poor' } });
    expect(records.slice(0, 8).some((record) => record.specialist === 'good' && record.routing?.reason === 'untried')).toBe(true);
    // Converged: the last ten roots went (nearly) all to good, the table's second choice.
    const last = records.slice(-10);
    expect(last.filter((record) => record.specialist === 'good').length, JSON.stringify(records.map((record) => [record.specialist, record.status, record.routing?.reason]))).toBeGreaterThanOrEqual(8);
    expect(last.filter((record) => record.specialist === 'good').every((record) => record.routing?.fixed === 'poor' && record.routing.learned === 'good')).toBe(true);

    // The Monitor's history says why.
    const redis = redisClient(deployment.redis.url);
    try {
      const report = await readHistoryReport(new BeadsStore(redis, { tier: 'PROGRESS_MONITOR', prefix: deployment.runtime.prefix }), { taskType: 'coin', now: Date.now() });
      const rate = (name: string): number => report.task_types[0]!.specialists.find((entry) => entry.specialist === name)!.stats.success_rate!;
      expect(rate('good')).toBeGreaterThan(rate('poor'));
    } finally {
      redis.disconnect();
    }
  }, 180_000);
});

describe('shadow routing, over the four tier processes', () => {
  let deployment: Deployment;

  beforeAll(async () => {
    deployment = await deploymentIn('shadow');
  }, 60_000);

  afterAll(() => deployment?.stop());

  it('routes as the fixed table does, and records what learned routing would have chosen, on the audit trail and the leaf', async () => {
    const { rootIds, records } = await runRoots(deployment);
    expect(records.every((record) => record.specialist === 'poor' && record.routing?.mode === 'shadow' && record.routing.fixed === 'poor')).toBe(true);
    // good was never tried: learned would try it, and says so.
    expect(records.at(-1)!.routing).toMatchObject({ learned: 'good', reason: 'untried' });

    const rootId = rootIds.at(-1)!;
    const redis = redisClient(deployment.redis.url);
    try {
      const decisions = (await readAuditTrail(redis, deployment.runtime.prefix, rootId)).filter((entry) => entry.kind === 'decision');
      expect(decisions).toHaveLength(1);
      expect(decisions[0]).toMatchObject({
        from: 'ROUTING_DISPATCHER',
        to: 'SPECIALIZED_FLEET',
        by: 'ROUTING_DISPATCHER',
        data: { mode: 'shadow', task_type: 'coin', chosen: 'poor', learned: 'good', reason: 'untried' },
      });
      expect(decisions[0]!.detail).toMatch(/^shadow: poor \(untried\); learned good; expected gain [+-]\d\.\d{3}$/);
    } finally {
      redis.disconnect();
    }
    const [leaf] = treeNodes((await deployment.client.tree(rootId))!, 'SPECIALIZED_FLEET');
    expect(leaf).toBeDefined();
    const inspected = await tierflow(['inspect', leaf!.id], { REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix });
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(inspected.stdout).toMatch(/ {2}routing {6}shadow: poor \(untried\); learned would pick good; expected gain [+-]\d\.\d{3}\n/);
    expect(inspected.stdout).toMatch(/SPECIALIST\s+SAMPLES\s+SUCCESS/);
  }, 180_000);
});
