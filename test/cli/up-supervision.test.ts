import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { resolveRuntimeOptions, TierflowClient } from '@tierflow/runtime';
import { isAlive, startRedisServer, uniquePrefix, waitFor, type RedisServer } from '@tierflow/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../security/tier-processes.js';
import { simPlan } from '../support/runs.js';

/** `tierflow up` as a user runs it, with every line it prints. */
interface Up {
  readonly process: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<number | null>;
  /** The pid each tier's process announced when it was ready, latest last. */
  pids(tier: string): number[];
}

function startUp(env: NodeJS.ProcessEnv, cwd?: string): Up {
  const child = spawn(process.execPath, [BIN, 'up'], { env: { ...process.env, OTEL_TRACES_EXPORTER: 'none', ...env }, stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => lines.push(line));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const pids = (tier: string): number[] =>
    lines.flatMap((line) => {
      const ready = new RegExp(`^${tier} +\\| ${tier} worker ready on .* \\(pid (\\d+)\\)$`).exec(line);
      return ready ? [Number(ready[1])] : [];
    });
  return { process: child, lines, exited, pids };
}

const TIERS = ['monitor', 'architect', 'dispatcher', 'fleet'];
let redis: RedisServer | undefined;
let up: Up | undefined;
let project: string | undefined;
/** Worker pids a test saw, killed after it should the test fail before they end. */
let workerPids: number[] = [];

afterEach(async () => {
  if (up && up.process.exitCode === null && up.process.signalCode === null) {
    up.process.kill('SIGTERM');
    await up.exited;
  }
  for (const pid of workerPids.filter(isAlive)) process.kill(pid, 'SIGKILL');
  await redis?.stop();
  if (project) await rm(project, { recursive: true, force: true });
  up = redis = project = undefined;
  workerPids = [];
});

/** A project directory holding `tierflow.config.ts` with `source`. */
async function projectWith(source: string): Promise<string> {
  project = await mkdtemp(join(tmpdir(), 'tierflow-up-'));
  await writeFile(join(project, 'tierflow.config.ts'), source);
  return project;
}

describe('tierflow up', () => {
  it('restarts a tier process that was killed, with the restart logged, and a run still completes; SIGTERM stops everything', async () => {
    redis = await startRedisServer();
    const prefix = uniquePrefix('up');
    up = startUp({ REDIS_URL: redis.url, TIERFLOW_PREFIX: prefix, TIERFLOW_LOG: 'silent' });
    const current = up;
    await waitFor(() => TIERS.every((tier) => current.pids(tier).length === 1), { timeoutMs: 30_000, description: `four workers ready:\n${current.lines.join('\n')}` });
    const [killed] = current.pids('fleet');

    process.kill(killed!, 'SIGKILL');
    await waitFor(() => current.pids('fleet').length === 2, { timeoutMs: 20_000, description: `the Fleet restarted:\n${current.lines.join('\n')}` });
    expect(current.lines).toContainEqual(expect.stringMatching(/^up: fleet worker exited \(signal SIGKILL\) after [\d.]+ s; restarting it in 1 s \(restart 1 in a row\)$/));
    expect(current.pids('fleet')[1]).not.toBe(killed);

    const client = new TierflowClient(resolveRuntimeOptions({ redisUrl: redis.url, prefix }));
    try {
      const rootId = await client.enqueue(simPlan('all_success', [{}, {}]));
      expect((await client.waitForResult(rootId, { timeoutMs: 30_000 })).payload.status).toBe('success');
    } finally {
      await client.close();
    }

    const running = TIERS.map((tier) => current.pids(tier).at(-1)!);
    current.process.kill('SIGTERM');
    expect(await current.exited).toBe(0);
    expect(running.filter(isAlive)).toEqual([]);
    // Stopped, not restarted.
    expect(current.lines.filter((line) => line.startsWith('up: ')).length).toBe(1);
  }, 90_000);

  it('refuses a bad environment itself, once, and starts no worker', async () => {
    // A prefix with no hash tag: every worker would refuse it; `up` reads the environment first.
    up = startUp({ REDIS_URL: 'redis://127.0.0.1:9', TIERFLOW_PREFIX: 'no-hash-tag', TIERFLOW_LOG: 'silent' });
    expect(await up.exited).toBe(2);
    expect(up.lines).toEqual(['tierflow: invalid configuration', expect.stringMatching(/^ {2}TIERFLOW_PREFIX="no-hash-tag": must be a key prefix with one \{hash tag\}/)]);
  }, 30_000);

  it("stops everything and exits 2 when Redis refuses the workers' password, without restarting them", async () => {
    // A wrong password, which only Redis can judge: every worker exits 2 as it connects.
    redis = await startRedisServer({ args: ['--requirepass', 'the-right-one'] });
    up = startUp({ REDIS_URL: `redis://:the-wrong-one@127.0.0.1:${redis.port}`, TIERFLOW_PREFIX: uniquePrefix('up-auth'), TIERFLOW_LOG: 'silent' });
    expect(await up.exited).toBe(2);
    expect(up.lines.join('\n')).toMatch(/worker exited with status 2 \(it cannot run as configured\): stopping the others/);
    expect(up.lines.join('\n')).toContain('WRONGPASS');
    expect(up.lines.join('\n')).not.toContain('the-wrong-one');
    expect(up.lines.filter((line) => line.includes('restarting it'))).toEqual([]);
  }, 30_000);

  it('takes its workers with it when it is killed (SIGKILL), so a restarted up does not run every tier twice', async () => {
    redis = await startRedisServer();
    up = startUp({ REDIS_URL: redis.url, TIERFLOW_PREFIX: uniquePrefix('up-orphans'), TIERFLOW_LOG: 'silent' });
    const current = up;
    await waitFor(() => TIERS.every((tier) => current.pids(tier).length === 1), { timeoutMs: 30_000, description: `four workers ready:\n${current.lines.join('\n')}` });
    workerPids = TIERS.map((tier) => current.pids(tier)[0]!);

    current.process.kill('SIGKILL');
    await current.exited;
    await waitFor(() => workerPids.every((pid) => !isAlive(pid)), { timeoutMs: 15_000, description: `the workers of a killed up gone: ${workerPids.filter(isAlive).join(', ')} still isAlive` });
  }, 60_000);

  it('kills and restarts a worker whose event loop is blocked (isAlive, no heartbeat) within its liveness limit', async () => {
    // A specialist that never yields: its Fleet process lives on, silent.
    const cwd = await projectWith(`
const spin = {
  name: 'spin',
  version: '1.0.0',
  run: async () => {
    process.stderr.write('spinning\\n');
    for (;;) {}
  },
};
export default { specialists: [spin] };
`);
    redis = await startRedisServer();
    const prefix = uniquePrefix('up-liveness');
    up = startUp({ REDIS_URL: redis.url, TIERFLOW_PREFIX: prefix, TIERFLOW_LOG: 'silent', TIERFLOW_LIVENESS_MS: '5000' }, cwd);
    const current = up;
    // Four workers each load the TypeScript project file first: a loaded CI machine once took over 30 s.
    await waitFor(() => TIERS.every((tier) => current.pids(tier).length === 1), { timeoutMs: 60_000, description: `four workers ready:\n${current.lines.join('\n')}` });
    workerPids = TIERS.map((tier) => current.pids(tier)[0]!);
    const [spinning] = current.pids('fleet');

    const client = new TierflowClient(resolveRuntimeOptions({ redisUrl: redis.url, prefix }));
    try {
      await client.enqueue(simPlan('all_success', [{}], { specialist_hint: 'spin' }));
      await waitFor(() => current.lines.includes('fleet      | spinning'), { timeoutMs: 30_000, description: `the Fleet spinning:\n${current.lines.join('\n')}` });
      // Killed once silent past its limit (and a check's interval), whenever the new worker is ready:
      // like every worker here it loads the TypeScript project file first, which a loaded machine
      // has taken over 20 s to do.
      await waitFor(() => current.pids('fleet').length === 2, { timeoutMs: 60_000, description: `the silent Fleet restarted:\n${current.lines.join('\n')}` });
      expect(isAlive(spinning!)).toBe(false);
      const killed = current.lines
        .map((line) => new RegExp(`^up: fleet worker \\(pid ${spinning}\\) sent no heartbeat for ([\\d.]+) s \\(limit 5 s\\): killing it \\(SIGKILL\\)$`).exec(line))
        .find(Boolean);
      expect(killed, current.lines.join('\n')).toBeTruthy();
      // The limit, a check's interval, and room for a loaded machine.
      expect(Number(killed![1])).toBeLessThan(5 + 1 + 3);
      expect(current.lines).toContainEqual(expect.stringMatching(/^up: fleet worker killed for its silence after [\d.]+ s; restarting it in 1 s \(restart 1 in a row\)$/));
      // The others beat on, untouched.
      expect(['monitor', 'architect', 'dispatcher'].map((tier) => current.pids(tier).length)).toEqual([1, 1, 1]);
    } finally {
      await client.close();
    }
  }, 160_000);

  it('exits 2 naming the project file when the file ends the process (process.exit(0)) as up loads it, rather than 0 with nothing running', async () => {
    const cwd = await projectWith(`process.exit(0);\nexport default {};\n`);
    up = startUp({ REDIS_URL: 'redis://127.0.0.1:9', TIERFLOW_PREFIX: uniquePrefix('up-exit'), TIERFLOW_LOG: 'silent' }, cwd);
    expect(await up.exited).toBe(2);
    expect(up.lines).toContainEqual(
      expect.stringMatching(
        /^up: code it loaded \(the project file tierflow\.config\.ts\) ended the process \(exit status 0\) while up was loading it: a project file must not exit; nothing was started$/,
      ),
    );
  }, 30_000);

  it('stops everything and exits 2 when the project file ends a worker as it loads, rather than restart it for ever', async () => {
    // Only in the workers: up itself loads the file cleanly.
    const cwd = await projectWith(`if (process.argv.includes('worker')) process.exit(0);\nexport default {};\n`);
    redis = await startRedisServer();
    up = startUp({ REDIS_URL: redis.url, TIERFLOW_PREFIX: uniquePrefix('up-worker-exit'), TIERFLOW_LOG: 'silent' }, cwd);
    expect(await up.exited).toBe(2);
    const text = up.lines.join('\n');
    expect(text).toMatch(/worker: the project file tierflow\.config\.ts ended the process \(exit status 0\) while it was loading: a project file must not exit/);
    expect(text).toMatch(/worker exited with status 2 \(it cannot run as configured\): stopping the others/);
    expect(up.lines.filter((line) => line.includes('restarting it'))).toEqual([]);
  }, 30_000);
});
