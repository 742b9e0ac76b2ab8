import { BeadsStore } from '@tierflow/beads';
import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import { AGGREGATION_SUMMARY, historyIncrements, learningMetadata, learningRecordSchema, type LearningRecord } from '@tierflow/core';
import { startPolicyWorker, type TierHandler, type TierWorker } from '@tierflow/runtime';
import { readHistoryReport } from '@tierflow/runtime/admin';
import { BOTTLENECKS_KEY, bottlenecksSchema, readSpecialistStats, specialistHistoryKey } from '@tierflow/runtime/policy';
import { learningRecord } from '@tierflow/runtime/testing';
import { redisClient, waitFor } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { treeNodes } from '../support/runs.js';

const HOUR = 3_600_000;
const silent = { info: () => undefined, warn: () => undefined };

const record = (overrides: Partial<LearningRecord> = {}): LearningRecord => learningRecord({ latency_ms: 200, ...overrides });

/**
 * An Architect that answers at once with the learning records its objective's `task_data.records`
 * holds, in its summary's metadata, as the Dispatcher's and the Architect's summaries carry them up.
 */
const recordingArchitect: TierHandler = {
  tier: 'ABSTRACT_ARCHITECT',
  start: (context) => {
    const records = learningRecordSchema.array().parse(context.assignment.payload.task_data.records);
    return Promise.resolve({
      kind: 'outcome',
      outcome: {
        status: 'success',
        summary: `${records.length} leaves`,
        confidence: 0.9,
        artifacts: [{ artifact_type: AGGREGATION_SUMMARY, inline_content: 'summary', metadata: learningMetadata(records) }],
      },
    });
  },
};

describe('the Monitor’s history, with a Monitor process', () => {
  let deployment: Deployment;
  let architect: TierWorker;
  let redis: Redis;
  let beads: BeadsStore;
  const replacements: TierProcesses[] = [];

  beforeAll(async () => {
    deployment = await startDeployment('history', { TIERFLOW_LOG: 'silent', TIERFLOW_HISTORY_HALF_LIFE_MS: String(HOUR) }, { tiers: ['monitor'] });
    architect = await startPolicyWorker(() => recordingArchitect, { runtime: deployment.runtime, log: silent });
    redis = redisClient(deployment.redis.url);
    beads = new BeadsStore(redis, { tier: 'PROGRESS_MONITOR', prefix: deployment.runtime.prefix });
  }, 60_000);

  afterAll(async () => {
    redis?.disconnect();
    await architect?.close();
    await Promise.all(replacements.map((processes) => processes.stop()));
    await deployment?.stop();
  });

  async function run(records: readonly LearningRecord[]): Promise<string> {
    const rootId = await deployment.client.enqueue({ objective: 'learn', task_data: { task_type: 'execute_code', records } });
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
    return rootId;
  }

  it('folds every record of a run into the history, which a restarted Monitor goes on adding to', async () => {
    const routing = { mode: 'shadow' as const, reason: 'fixed' as const, fixed: 'sim', learned: 'fast', expected_gain: 0.25 };
    const first = [
      ...Array.from({ length: 5 }, () => record({ routing, latency_ms: 4_000 })),
      record({ status: 'failed', routing, model: 'qwen' }),
      record({ task_type: 'write', specialist: 'writer' }),
    ];
    const rootId = await run(first);

    const report = await readHistoryReport(beads, { now: Date.now() });
    expect(report.half_life_ms).toBe(HOUR);
    expect(report.task_types.map((type) => type.task_type)).toEqual(['execute_code', 'write']);
    const sim = report.task_types[0]!.specialists.find((entry) => entry.specialist === 'sim')!;
    expect(sim.stats.samples).toBeCloseTo(6, 2);
    expect(sim.stats.success_rate).toBeCloseTo(5 / 6, 2);
    expect(sim.models.map((entry) => [entry.model, entry.stats.by_status])).toEqual([['qwen', { failed: expect.closeTo(1, 2) as number }]]);
    expect(report.task_types[0]!.routing).toMatchObject({
      routed: expect.closeTo(6, 2) as number,
      shadow: { differs: expect.closeTo(6, 2) as number, mean_expected_gain: expect.closeTo(0.25, 9) as number },
    });
    expect(bottlenecksSchema.parse(await beads.get(BOTTLENECKS_KEY)).bottlenecks.map((entry) => [entry.reason, entry.specialist])).toEqual([
      ['slow', 'sim'],
      ['unreliable', 'sim'],
    ]);
    // The run's own record is kept thirty days now.
    expect(await redis.pttl(beads.redisKey(`history/runs/${rootId}`))).toBeGreaterThan(29 * 24 * HOUR);

    // Another Monitor process takes over: the history is in Redis, not in the process.
    const monitor = deployment.tiers.children.get('monitor')!;
    const exited = new Promise((resolve) => monitor.once('exit', resolve));
    monitor.kill('SIGTERM');
    await exited;
    let ready = false;
    replacements.push(
      spawnTiers(
        {
          ...process.env,
          TIERFLOW_LOG: 'silent',
          OTEL_TRACES_EXPORTER: 'none',
          REDIS_URL: deployment.redis.url,
          TIERFLOW_PREFIX: deployment.runtime.prefix,
          TIERFLOW_HISTORY_HALF_LIFE_MS: String(HOUR),
        },
        (_tier, line) => {
          if (line.includes('worker ready')) ready = true;
        },
        ['monitor'],
      ),
    );
    // A worker's start takes seconds alone and far longer beside the rest of the suite.
    await waitFor(() => ready, { description: 'the replacement Monitor', timeoutMs: 90_000 });
    await run([record(), record()]);
    const after = await readHistoryReport(beads, { taskType: 'execute_code', now: Date.now() });
    const again = after.task_types[0]!.specialists.find((entry) => entry.specialist === 'sim')!;
    expect(again.stats.samples).toBeCloseTo(8, 1);
    expect(again.stats.success_rate).toBeCloseTo(7 / 8, 2);
  }, 180_000);
});

describe('calibrated confidence, over the four tier processes', () => {
  let deployment: Deployment;

  beforeAll(async () => {
    // The cascade check off: this is about the value the aggregate and the root report.
    deployment = await startDeployment('calibration', { TIERFLOW_LOG: 'silent', TIERFLOW_CASCADE_CHECK: 'off', TIERFLOW_CALIBRATION: 'on' });
  }, 60_000);

  afterAll(() => deployment?.stop());

  it('an over-confident specialist’s reported confidence counts for what its history says it has earned', async () => {
    // `sim` reported 0.9 twenty times on `seeded` work, and was right four times.
    const redis = redisClient(deployment.redis.url);
    try {
      const monitor = new BeadsStore(redis, { tier: 'PROGRESS_MONITOR', prefix: deployment.runtime.prefix });
      for (let i = 0; i < 20; i++) {
        await monitor.addDecayed(specialistHistoryKey('seeded', 'sim'), historyIncrements(record({ task_type: 'seeded', status: i < 4 ? 'success' : 'failed' })), {
          halfLifeMs: 24 * HOUR,
          now: Date.now(),
        });
      }
    } finally {
      redis.disconnect();
    }
    const objective = (taskType: string) => ({
      objective: `work of type ${taskType}`,
      task_data: { plan: { strategy: 'all_success' as const, subtasks: [{ objective: 'one leaf', task_type: taskType, task_data: { sim: { confidence: 0.9 } } }] } },
    });
    const seeded = await deployment.client.enqueue(objective('seeded'));
    const unseen = await deployment.client.enqueue(objective('unseen'));
    const [calibrated, asReported] = await Promise.all([deployment.client.waitForResult(seeded, { timeoutMs: 30_000 }), deployment.client.waitForResult(unseen, { timeoutMs: 30_000 })]);
    // (0.2 × 20 + 5 × 0.9) / (20 + 5): history outweighs the report five to four.
    expect(calibrated.payload).toMatchObject({ status: 'success', confidence: expect.closeTo(0.34, 2) as number });
    expect(asReported.payload).toMatchObject({ status: 'success', confidence: 0.9 });
    // The leaf itself still says what it reported; the Dispatcher above it relied on the calibrated value.
    const tree = (await deployment.client.tree(seeded))!;
    expect(treeNodes(tree, 'SPECIALIZED_FLEET')[0]?.confidence).toBe(0.9);
    expect(treeNodes(tree, 'ROUTING_DISPATCHER')[0]?.confidence).toBeCloseTo(0.34, 2);

    // Both leaves are history now, as the specialist reported them: calibration never feeds on itself.
    const reader = redisClient(deployment.redis.url);
    try {
      const beads = new BeadsStore(reader, { tier: 'PROGRESS_MONITOR', prefix: deployment.runtime.prefix });
      const [seededStats, unseenStats] = await Promise.all(['seeded', 'unseen'].map((taskType) => readSpecialistStats(beads, taskType, ['sim'], Date.now())));
      expect(seededStats!.get('sim')).toMatchObject({ samples: expect.closeTo(21, 2) as number, success_rate: expect.closeTo(5 / 21, 2) as number });
      expect(unseenStats!.get('sim')?.calibration.bins[9]).toMatchObject({ samples: expect.closeTo(1, 2) as number, mean_reported: expect.closeTo(0.9, 9) as number, success_rate: 1 });
    } finally {
      reader.disconnect();
    }
  }, 60_000);
});
