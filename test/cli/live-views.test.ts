import type { OutcomeMessage } from '@tierflow/protocol';
import { DEFAULT_CONCURRENCY } from '@tierflow/runtime/admin';
import { type RunSummary, type WorkerBeat } from '@tierflow/runtime';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BIN, tierflow } from '../security/tier-processes.js';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan } from '../support/runs.js';

// Four worker processes beating every 200 ms: `tierflow runs` lists the runs, `tierflow workers` the workers alive.
let deployment: Deployment;
beforeAll(async () => {
  deployment = await startDeployment('workers', { TIERFLOW_LOG: 'silent', TIERFLOW_HEARTBEAT_MS: '200' });
  // A tmux server of this file's own, kept up by a session of its own between the tests' panes:
  // the default server is shared with whatever else runs tmux, and exits as its last session closes.
  await run('tmux', [...TMUX, 'new-session', '-d', '-s', 'keep', 'sleep 600']);
}, 60_000);
afterAll(async () => {
  await run('tmux', [...TMUX, 'kill-server']).catch(() => undefined);
  await rm(SOCKET, { force: true });
  await deployment?.stop();
});

const SOCKET = join(tmpdir(), `tierflow-live-${process.pid}.tmux`);
const TMUX = ['-S', SOCKET];

const run = async (command: string, args: readonly string[]): Promise<string> => (await promisify(execFile)(command, args)).stdout;
const env = (): NodeJS.ProcessEnv => ({ REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix });

// One shell command in a tmux pane, its words quoted: `tierflow <args>`, then its exit status; the
// pane stays once the command is done, to be read.
const quote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;
async function inPane(session: string, args: readonly string[]): Promise<void> {
  const vars = Object.entries({ ...env(), OTEL_TRACES_EXPORTER: 'none' }).map(([name, value]) => `${name}=${quote(value ?? '')}`);
  const command = `env ${vars.join(' ')} ${[process.execPath, BIN, ...args].map(quote).join(' ')}; echo "exited $?"; sleep 60`;
  await run('tmux', [...TMUX, 'new-session', '-d', '-s', session, '-x', '200', '-y', '30', command]);
}
/** What the pane shows, the lines scrolled off the top included, wrapped lines joined. */
const screen = async (session: string): Promise<string> => (await run('tmux', [...TMUX, 'capture-pane', '-p', '-J', '-S', '-', '-t', session])).trimEnd();

/** The pane's text once it shows what `shows` looks for. */
const screenShowing = (session: string, shows: (text: string) => boolean, description: string, timeoutMs: number): Promise<string> =>
  waitFor(
    async () => {
      const text = await screen(session);
      return shows(text) ? text : null;
    },
    { timeoutMs, description },
  );
const closePane = (session: string): Promise<unknown> => run('tmux', [...TMUX, 'kill-session', '-t', session]).catch(() => undefined);
// The live tree's line for a running leaf, with its elapsed time and progress.
const LEAF_PROGRESSING = /fleet\s+\S+\s+general\s+sim\s+running\s+[\d.]+ s\s+\d+% sim: \d+ of 60000 ms/;

async function runs(args: readonly string[]): Promise<RunSummary[]> {
  const result = await tierflow(['runs', '--json', ...args], env());
  expect(result, result.stderr).toMatchObject({ code: 0 });
  return (JSON.parse(result.stdout) as { runs: RunSummary[] }).runs;
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
    // Its root waits for the leaf: `waiting_for_children`, as docs/statuses.md says, BullMQ's word only in queue_state.
    await waitFor(async () => (await deployment.client.runs({ status: 'waiting_for_children' })).some((run) => run.root_id === running), {
      description: 'the long run to wait for its children',
    });
    const all = await runs([]);
    expect(all.map((run) => [run.root_id, run.status, run.queue_state])).toEqual([
      [running, 'waiting_for_children', 'waiting-children'],
      [done, 'success', 'completed'],
    ]);
    expect(all[1]).toMatchObject({ objective: 'test all_success', duration_ms: expect.any(Number) as unknown, finished_at: expect.any(String) as unknown });
    expect((await runs(['--status', 'success'])).map((run) => run.root_id)).toEqual([done]);
    expect((await runs(['--status', 'waiting for children'])).map((run) => run.root_id)).toEqual([running]);
    expect((await runs(['--limit', '1'])).map((run) => run.root_id)).toEqual([running]);
    const text = await tierflow(['runs'], env());
    expect(text.stdout).toMatch(new RegExp(`^${running}\\s+waiting_for_children\\s+\\d+ s\\s+[\\d.]+ s\\s+-\\s+-\\s+a long one$`, 'm'));
    expect(text.stdout).not.toContain('waiting-children');
    expect((await tierflow(['runs', '--debug'], env())).stdout).toMatch(new RegExp(`^${running}\\s+waiting_for_children\\s+waiting-children\\s`, 'm'));
    const refused = await tierflow(['runs', '--status', 'prioritized'], env());
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('must be a status: queued, running, waiting_for_children');
    await deployment.client.cancel(running);
    await deployment.client.waitForResult(running, { timeoutMs: 20_000 });
    // Seven `tierflow` processes in turn: 8 s alone, past 30 s once on a loaded CI run.
  }, 90_000);
});

describe('tierflow watch', () => {
  // A run that would take a minute: each test sees it running, then cancels it, whatever the time
  // a fresh `tierflow` process takes to start.
  const longRun = () => deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 60_000 }]));
  const progressing = (text: string): boolean => /"tier":"SPECIALIZED_FLEET","status":"running".*"progress":\{"percent":\d/.test(text);

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
    await inPane(session, ['watch', rootId]);
    try {
      const during = await screenShowing(session, (text) => LEAF_PROGRESSING.test(text), 'the live tree with the leaf’s progress', 20_000);
      expect(during).toContain(`run ${rootId}`);
      await deployment.client.cancel(rootId);
      const after = await screenShowing(session, (text) => text.includes('cancelled: '), 'the outcome', 15_000);
      // Drawn in place: one heading, one tree, however many times it was redrawn.
      expect(after.split('\n').filter((line) => line.startsWith(`run ${rootId}`))).toHaveLength(1);
      expect(after.split('\n').filter((line) => line.startsWith('monitor'))).toHaveLength(1);
    } finally {
      await closePane(session);
    }
  });
});

describe('tierflow enqueue --wait', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tierflow-live-'));
    file = join(dir, 'objective.json');
    // A run that would take a minute: each test ends it.
    await writeFile(file, JSON.stringify(simPlan('all_success', [{ delay_ms: 60_000 }])));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('on a terminal, draws the tree live on stderr while it waits, then ends with the outcome’s summary, not its JSON', async () => {
    const session = `tierflow-enqueue-${process.pid}`;
    await inPane(session, ['enqueue', file, '--wait']);
    try {
      const during = await screenShowing(session, (text) => LEAF_PROGRESSING.test(text), 'the live tree with the leaf’s progress', 20_000);
      // The root id first, as without a terminal, then the live view of that run.
      const rootId = during.split('\n')[0]!;
      expect(during).toContain(`run ${rootId}  `);
      expect(during).toMatch(/\(waiting for \d+ s; Ctrl-C stops waiting, not the run\)/);
      for (const tier of ['monitor', 'architect', 'dispatcher', 'fleet']) expect(during).toMatch(new RegExp(`^(?:[│├└─ ]*)${tier}\\s+${rootId.replaceAll('.', '\\.')}`, 'm'));
      await deployment.client.cancel(rootId);
      const after = await screenShowing(session, (text) => /^exited \d+$/m.test(text), 'the command to exit', 15_000);
      // A cancelled run is an outcome, not a success.
      expect(after).toMatch(/^exited 1$/m);
      // Drawn in place: one heading and one tree, left on screen as the run ended, above the outcome.
      const lines = after.split('\n');
      const headings = lines.filter((line) => line.startsWith(`run ${rootId}`));
      expect(headings).toHaveLength(1);
      expect(headings[0]).toContain(`run ${rootId}  cancelled  (waiting for`);
      expect(lines.filter((line) => line.startsWith('monitor'))).toHaveLength(1);
      expect(after).toMatch(/fleet\s+\S+\s+general\s+sim\s+cancelled/);
      // Below the tree, a few lines a person reads: the status, the summary, where the JSON is.
      const summary = after.slice(after.indexOf('\noutcome ') + 1, after.lastIndexOf('\nexited'));
      expect(after.indexOf(`run ${rootId}`)).toBeLessThan(after.indexOf(summary));
      expect(summary).toMatch(/^outcome +cancelled +confidence \d\.\d\d +took [\d.]+ s$/m);
      expect(summary).toMatch(/^summary +\S/m);
      expect(summary).toContain(`tierflow result ${rootId} prints the outcome message as JSON`);
      expect(summary.split('\n').length).toBeLessThanOrEqual(6);
      expect(summary).not.toContain('"payload"');
    } finally {
      await closePane(session);
    }
  });

  it('on a terminal with --json, prints the outcome message as JSON', async () => {
    const quick = join(dir, 'quick.json');
    await writeFile(quick, JSON.stringify(simPlan('all_success', [{}])));
    const session = `tierflow-enqueue-json-${process.pid}`;
    await inPane(session, ['enqueue', quick, '--wait', '--json']);
    try {
      const after = await screenShowing(session, (text) => /^exited \d+$/m.test(text), 'the command to exit', 20_000);
      expect(after).toMatch(/^exited 0$/m);
      const outcome = JSON.parse(after.slice(after.indexOf('\n{\n') + 1, after.lastIndexOf('\nexited'))) as OutcomeMessage;
      expect(outcome.payload.status).toBe('success');
    } finally {
      await closePane(session);
    }
  });

  it('on a terminal, finishes the live view and says why when the wait ends without an outcome', async () => {
    const session = `tierflow-enqueue-limit-${process.pid}`;
    await inPane(session, ['enqueue', file, '--wait', '--timeout-ms', '1000']);
    try {
      const after = await screenShowing(session, (text) => /^exited \d+$/m.test(text), 'the command to give up', 20_000);
      const rootId = after.split('\n')[0]!;
      expect(after).toMatch(/^exited 1$/m);
      expect(after).toContain(`no outcome for ${rootId}: timed out after 1000 ms`);
      expect(after.split('\n').filter((line) => line.startsWith(`run ${rootId}`)).length).toBeLessThanOrEqual(1);
      await deployment.client.cancel(rootId);
      await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    } finally {
      await closePane(session);
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
    expect(listed.find((worker) => worker.tier === 'SPECIALIZED_FLEET')).toMatchObject({ specialists: ['sim'], concurrency: DEFAULT_CONCURRENCY, running: 0 });
    const text = await tierflow(['workers'], env());
    expect(text.stdout).toMatch(new RegExp(`^fleet\\s+\\S+\\s+${pids.get('fleet')}\\s.*sim$`, 'm'));

    // Killed: no clean stop to remove its record, which lapses after three missed beats.
    deployment.tiers.children.get('fleet')!.kill('SIGKILL');
    const after = await waitFor(
      async () => {
        const list = await workers();
        return list.some((worker) => worker.tier === 'SPECIALIZED_FLEET') ? null : list;
      },
      // The record lapses in 600 ms; the rest is for starting the CLI on a busy host.
      { timeoutMs: 20_000, description: 'the killed Fleet worker to drop out' },
    );
    expect(after.map((worker) => worker.tier).sort()).toEqual(['ABSTRACT_ARCHITECT', 'PROGRESS_MONITOR', 'ROUTING_DISPATCHER']);
  });
});
