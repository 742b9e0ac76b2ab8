import { spawnTiers, type TierProcesses } from '@tierflow/cli';
import { learningRecordsOf, type LearningRecord } from '@tierflow/core';
import type { OutcomeMessage, TierSlug } from '@tierflow/protocol';
import type { ObjectiveFile } from '@tierflow/runtime';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { treeNodes } from '../support/runs.js';
import { simulatedDraw, simulatedTaskData, writeSimulatedProject, type SimulatedProject } from '../support/simulated-specialists.js';

// Module specialists whose success is drawn at hidden rates: `shaky` never succeeds and comes
// first in its route, `steady` always does; `boaster` reports 0.95 and is right about half the time.
const SEED = 7;
const SPECIALISTS = [
  { name: 'shaky', success: [0], confidence: 0.8, latencyMs: 0, costUsd: 0.001, tokensIn: 10, tokensOut: 10 },
  { name: 'steady', success: [1], confidence: 0.8, latencyMs: 0, costUsd: 0.001, tokensIn: 10, tokensOut: 10 },
  { name: 'boaster', success: [0.5], confidence: 0.95, latencyMs: 0, costUsd: 0.001, tokensIn: 10, tokensOut: 10 },
];

// The cascade check off: a calibrated confidence under its flag bound would otherwise be sent again with a concern.
const ENV = { TIERFLOW_CASCADE_CHECK: 'off', TIERFLOW_CALIBRATION: 'on' };

let project: SimulatedProject;
let deployment: Deployment;
const extra: TierProcesses[] = [];

/** Tier processes beside the deployment's, on its Redis and prefix, ready when this resolves. */
async function spawnReady(tiers: readonly TierSlug[], label: string): Promise<TierProcesses> {
  const ready = new Set<TierSlug>();
  const processes = spawnTiers(
    { ...process.env, ...ENV, OTEL_TRACES_EXPORTER: 'none', REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix, TIERFLOW_CONFIG: project.configFile },
    (tier, line) => {
      deployment.logs.push(`${tier} (${label}) | ${line}`);
      if (line.includes('worker ready')) ready.add(tier);
    },
    tiers,
  );
  extra.push(processes);
  await waitFor(() => ready.size === tiers.length, { timeoutMs: 45_000, description: `${label} ready; output:\n${deployment.logs.join('\n')}` });
  return processes;
}

async function stopProcess(processes: TierProcesses, tier: TierSlug): Promise<void> {
  const child = processes.children.get(tier)!;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function objective(taskType: string, key: string): ObjectiveFile {
  return {
    objective: `${taskType} ${key}`,
    task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'one leaf', task_type: taskType, task_data: simulatedTaskData({ phase: 0, key }) }] } },
  };
}

/** One root to its end: its outcome and the learning record of its one leaf. */
async function runRoot(taskType: string, key: string): Promise<{ rootId: string; outcome: OutcomeMessage; record: LearningRecord }> {
  const rootId = await deployment.client.enqueue(objective(taskType, key));
  const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 30_000 });
  const { records } = learningRecordsOf(outcome.payload);
  expect(records, `the root's learning records; output:\n${deployment.logs.slice(-30).join('\n')}`).toHaveLength(1);
  return { rootId, outcome, record: records[0]! };
}

beforeAll(async () => {
  project = await writeSimulatedProject(SEED, SPECIALISTS, {
    // No exploration: once every candidate is tried, a decision takes the best posterior mean.
    routing: { mode: 'learned', exploration: 0, pick: ['shaky', 'steady'], boast: ['boaster'] },
    history: { halfLife: '1d' },
    architect: { maxRevisions: 0 },
  });
  deployment = await startDeployment('shared-history', { ...ENV, TIERFLOW_CONFIG: project.configFile });
}, 60_000);

afterAll(async () => {
  await Promise.all(extra.map((processes) => processes.stop()));
  await deployment?.stop();
  await project?.remove();
});

describe('history shared by the tiers', () => {
  it('two Dispatcher processes route by one history, which outlives the workers', async () => {
    // The first Dispatcher tries each candidate until it has a few attempts of history (untried first, in table order), then goes by the history the Monitor folded.
    const first: LearningRecord[] = [];
    for (let i = 0; first.at(-1)?.routing?.reason !== 'best_mean'; i++) {
      expect(i, `decisions so far: ${JSON.stringify(first.map((record) => record.routing))}`).toBeLessThan(12);
      first.push((await runRoot('pick', `first-${i}`)).record);
    }
    expect(first.map((record) => record.specialist)).toEqual(expect.arrayContaining(['shaky', 'steady']));
    expect(first.filter((record) => record.routing?.reason === 'untried').length).toBe(first.length - 1);
    expect(first.at(-1)).toMatchObject({ specialist: 'steady', status: 'success', routing: { mode: 'learned', fixed: 'shaky', learned: 'steady' } });

    // A second Dispatcher process takes over: it has routed nothing, yet goes by what the first one's runs taught.
    await spawnReady(['dispatcher'], 'second dispatcher');
    await stopProcess(deployment.tiers, 'dispatcher');
    for (let i = 0; i < 2; i++) expect((await runRoot('pick', `second-${i}`)).record).toMatchObject({ specialist: 'steady', routing: { reason: 'best_mean' } });

    // Every worker restarts, two Dispatchers among them: the history is in Redis, not in the processes.
    await Promise.all([deployment.tiers.stop(), ...extra.map((processes) => processes.stop())]);
    await Promise.all([spawnReady(['monitor', 'architect', 'dispatcher', 'fleet'], 'restarted'), spawnReady(['dispatcher'], 'restarted, second dispatcher')]);
    const after = await Promise.all(Array.from({ length: 4 }, (_, i) => runRoot('pick', `restarted-${i}`)));
    for (const { record } of after) expect(record).toMatchObject({ specialist: 'steady', status: 'success', routing: { reason: 'best_mean' } });
  }, 120_000);

  it('an over-confident specialist’s confidence drops in the outcomes once its history holds enough attempts', async () => {
    // Attempt keys the module's draw makes alternate: boaster succeeds on half of them.
    const keys: string[] = [];
    for (let k = 0; keys.length < 13; k++) {
      const key = `boast-${k}`;
      const succeeds = simulatedDraw(SEED, key, 'boaster') < 0.5;
      if (succeeds === (keys.length % 2 === 0)) keys.push(key);
    }
    // Twelve attempts at 0.95 (six right): calibration needs ten in the bin, and the decayed count of ten is a shade under ten.
    const runs = [];
    for (const key of keys) runs.push(await runRoot('boast', key));
    const [firstSuccess] = runs;
    const last = runs.at(-1)!;
    expect(firstSuccess!.outcome.payload).toMatchObject({ status: 'success', confidence: 0.95 });
    expect(last.record).toMatchObject({ specialist: 'boaster', status: 'success', confidence: 0.95 });
    // (6 successes + 5 × 0.95) / (12 + 5): what its history says it has earned, pulled towards its word.
    const calibrated = (6 + 5 * 0.95) / (12 + 5);
    expect(last.outcome.payload.status).toBe('success');
    expect(last.outcome.payload.confidence).toBeCloseTo(calibrated, 2);
    // The leaf still says what it reported; the Dispatcher above it counted the calibrated value.
    const tree = (await deployment.client.tree(last.rootId))!;
    expect(treeNodes(tree, 'SPECIALIZED_FLEET')[0]?.confidence).toBe(0.95);
    expect(treeNodes(tree, 'ROUTING_DISPATCHER')[0]?.confidence).toBeCloseTo(calibrated, 2);
  }, 90_000);
});
