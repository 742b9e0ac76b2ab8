import type { RunSummary, WorkerBeat } from '@tierflow/runtime';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { BIN, tierflow } from '../security/tier-processes.js';
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

const run = async (command: string, args: readonly string[]): Promise<string> => (await promisify(execFile)(command, args)).stdout;
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

describe('tierflow watch', () => {
  // A run that would take a minute: each test sees it running, then cancels it, whatever the time
  // a fresh `tierflow` process takes to start.
  const longRun = () => deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 60_000 }]));
  const progressing = (text: string): boolean => /"tier":"SPECIALIZED_FLEET","status":"active".*"progress":\{"percent":\d/.test(text);

  it('with --json, prints one event a line as nodes appear and change, progress included, and the outcome last', async () => {
    const rootId = await longRun();
    const child = spawn(process.execPath, [BIN, 'watch', rootId, '--json'], { env: { ...process.env, OTEL_TRACES_EXPORTER: 'none', ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await waitFor(() => progressing(output), { timeoutMs: 20_000, description: 'a progress event of the running leaf' });
      await deployment.client.cancel(rootId);
      expect(await exited).toBe(1);
    } finally {
      child.kill();
    }
    const events = output
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: string; tier?: string; status?: string });
    expect(events.at(-1)).toMatchObject({ type: 'outcome', root_id: rootId, status: 'cancelled' });
    expect(events.filter((event) => event.tier === 'SPECIALIZED_FLEET').at(-1)).toMatchObject({ type: 'node', status: 'cancelled' });
    expect(new Set(events.filter((event) => event.type === 'node').map((event) => event.id))).toEqual(new Set([rootId, `${rootId}.0-0`, `${rootId}.0-0.0-0`, `${rootId}.0-0.0-0.0-0`]));
  });

  it('on a terminal, redraws the tree in place until the run ends, then prints the outcome', async () => {
    const rootId = await longRun();
    const session = `tierflow-watch-${process.pid}`;
    // One shell command, its words quoted; the pane stays once the command is done, to be read.
    const quote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;
    const vars = Object.entries({ ...env(), OTEL_TRACES_EXPORTER: 'none' }).map(([name, value]) => `${name}=${quote(value ?? '')}`);
    await run('tmux', ['new-session', '-d', '-s', session, '-x', '200', '-y', '30', `env ${vars.join(' ')} ${quote(process.execPath)} ${quote(BIN)} watch ${quote(rootId)}; sleep 60`]);
    try {
      const screen = async () => (await run('tmux', ['capture-pane', '-p', '-t', session])).trimEnd();
      const during = await waitFor(
        async () => {
          const text = await screen();
          return /fleet\s+\S+\s+general\s+sim\s+active\s+[\d.]+ s\s+\d+% sim: \d+ of 60000 ms/.test(text) ? text : null;
        },
        { timeoutMs: 20_000, description: 'the live tree with the leaf’s progress' },
      );
      expect(during).toContain(`run ${rootId}`);
      await deployment.client.cancel(rootId);
      const after = await waitFor(
        async () => {
          const text = await screen();
          return text.includes('cancelled: ') ? text : null;
        },
        { timeoutMs: 15_000, description: 'the outcome' },
      );
      // Drawn in place: one heading, one tree, however many times it was redrawn.
      expect(after.split('\n').filter((line) => line.startsWith(`run ${rootId}`))).toHaveLength(1);
      expect(after.split('\n').filter((line) => line.startsWith('monitor'))).toHaveLength(1);
    } finally {
      await run('tmux', ['kill-session', '-t', session]).catch(() => undefined);
    }
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
