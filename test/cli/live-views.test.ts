import type { RunSummary, WorkerBeat } from '@tierflow/runtime';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierflow } from '../security/tier-processes.js';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan } from '../support/runs.js';

// Four worker processes beating every 200 ms: `tierflow runs` lists the runs, `tierflow workers` the workers alive.
let deployment: Deployment;
beforeAll(async () => {
  deployment = await startDeployment('workers', { TIERFLOW_LOG: 'silent', TIERFLOW_HEARTBEAT_MS: '200' });
}, 60_000);
afterAll(async () => {
  await deployment?.stop();
});

const env = (): NodeJS.ProcessEnv => ({ REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix });

async function runs(args: readonly string[]): Promise<RunSummary[]> {
  const result = await tierflow(['runs', '--json', ...args], env());
  expect(result, result.stderr).toMatchObject({ code: 0 });
  return JSON.parse(result.stdout) as RunSummary[];
}

async function workers(): Promise<WorkerBeat[]> {
  const result = await tierflow(['workers', '--json'], env());
  expect(result, result.stderr).toMatchObject({ code: 0 });
  return JSON.parse(result.stdout) as WorkerBeat[];
}

describe('tierflow runs', () => {
  it('lists recent runs latest first, running and finished, filtered by status', async () => {
    const done = await deployment.client.enqueue(simPlan('all_success', [{}]));
    await deployment.client.waitForResult(done, { timeoutMs: 20_000 });
    const running = await deployment.client.enqueue({
      objective: 'a long one',
      task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'wait', task_data: { sim: { delay_ms: 60_000 } } }] } },
    });
    await waitFor(async () => (await deployment.client.runs({ status: 'running' })).some((run) => run.root_id === running), { description: 'the long run to be running' });
    const all = await runs([]);
    expect(all.map((run) => [run.root_id, run.status])).toEqual([
      [running, 'running'],
      [done, 'success'],
    ]);
    expect(all[1]).toMatchObject({ objective: 'test all_success', duration_ms: expect.any(Number) as unknown, finished_at: expect.any(String) as unknown });
    expect((await runs(['--status', 'success'])).map((run) => run.root_id)).toEqual([done]);
    expect((await runs(['--limit', '1'])).map((run) => run.root_id)).toEqual([running]);
    const text = await tierflow(['runs'], env());
    expect(text.stdout).toMatch(new RegExp(`^${running}\\s+running\\s+\\d+ s\\s+[\\d.]+ s\\s+a long one$`, 'm'));
    await deployment.client.cancel(running);
    await deployment.client.waitForResult(running, { timeoutMs: 20_000 });
  });
});

describe('tierflow workers', () => {
  it('lists each live worker process with its tier, pid and what it serves, and drops one that was killed', async () => {
    const pids = new Map([...deployment.tiers.children].map(([tier, child]) => [tier, child.pid!]));
    const listed = await workers();
    expect(listed.map((worker) => [worker.tier, worker.pid]).sort()).toEqual(
      [
        ['ABSTRACT_ARCHITECT', pids.get('architect')],
        ['PROGRESS_MONITOR', pids.get('monitor')],
        ['ROUTING_DISPATCHER', pids.get('dispatcher')],
        ['SPECIALIZED_FLEET', pids.get('fleet')],
      ].sort(),
    );
    expect(listed.find((worker) => worker.tier === 'SPECIALIZED_FLEET')).toMatchObject({ specialists: ['sim'], concurrency: 8, running: 0 });
    const text = await tierflow(['workers'], env());
    expect(text.stdout).toMatch(new RegExp(`^fleet\\s+\\S+\\s+${pids.get('fleet')}\\s.*sim$`, 'm'));

    // Killed: no clean stop to remove its record, which lapses after three missed beats.
    deployment.tiers.children.get('fleet')!.kill('SIGKILL');
    const after = await waitFor(
      async () => {
        const list = await workers();
        return list.some((worker) => worker.tier === 'SPECIALIZED_FLEET') ? null : list;
      },
      { timeoutMs: 5_000, description: 'the killed Fleet worker to drop out' },
    );
    expect(after.map((worker) => worker.tier).sort()).toEqual(['ABSTRACT_ARCHITECT', 'PROGRESS_MONITOR', 'ROUTING_DISPATCHER']);
  });
});
