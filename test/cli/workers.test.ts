import type { WorkerBeat } from '@tierflow/runtime';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierflow } from '../security/tier-processes.js';
import { startDeployment, type Deployment } from '../support/deployment.js';

// Four worker processes beat every 200 ms; `tierflow workers` lists those alive.
let deployment: Deployment;
beforeAll(async () => {
  deployment = await startDeployment('workers', { TIERFLOW_LOG: 'silent', TIERFLOW_HEARTBEAT_MS: '200' });
}, 60_000);
afterAll(async () => {
  await deployment?.stop();
});

const env = (): NodeJS.ProcessEnv => ({ REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix });

async function workers(): Promise<WorkerBeat[]> {
  const result = await tierflow(['workers', '--json'], env());
  expect(result, result.stderr).toMatchObject({ code: 0 });
  return JSON.parse(result.stdout) as WorkerBeat[];
}

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
