import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isAlive, startRedisServer, uniquePrefix, waitFor, type RedisServer } from '@tierflow/testing';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../security/tier-processes.js';
import { findChromium } from '../support/chromium.js';
import { simPlan } from '../support/runs.js';

// `tierflow dev` as a newcomer runs it: no Redis of their own, no other terminal, and the runs of
// one session still there at the next.

const TIERS = ['monitor', 'architect', 'dispatcher', 'fleet'];
/** Starting four workers and a Redis on a busy machine. */
const START_MS = 45_000;

/** `tierflow dev` running, with every line it prints. */
interface Dev {
  readonly process: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<number | null>;
}

/** The environment of a shell with no Tierflow settings, REDIS_URL included, but what `extra` sets. */
function plainEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'REDIS_URL' && !name.startsWith('TIERFLOW_')));
  return { ...env, OTEL_TRACES_EXPORTER: 'none', TIERFLOW_LOG: 'silent', ...extra };
}

let started: Dev[] = [];
let pids: number[] = [];
let dirs: string[] = [];
let redis: RedisServer | undefined;

function startDev(cwd: string, env: NodeJS.ProcessEnv = plainEnv()): Dev {
  // A process group of its own, as a shell gives a command: Ctrl-C is SIGINT to the whole group.
  const child = spawn(process.execPath, [BIN, 'dev', '--port', '0'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => lines.push(line));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const dev = { process: child, lines, exited };
  started.push(dev);
  return dev;
}

interface Started {
  readonly url: string;
  readonly redisPid: number | null;
  readonly workerPids: number[];
}

/** The dashboard URL dev printed, once it has; with the pids of the processes it said it started. */
async function ready(dev: Dev, redisStarted = true): Promise<Started> {
  const seen = (): Started | null => {
    const url = dev.lines.map((line) => /Dashboard: (http:\/\/127\.0\.0\.1:\d+)\//.exec(line)?.[1]).find(Boolean);
    const redisPid = dev.lines.map((line) => /^dev: redis-server \(pid (\d+)\)/.exec(line)?.[1]).find(Boolean);
    const workerPids = TIERS.flatMap((tier) => dev.lines.flatMap((line) => new RegExp(`^${tier} +\\| ${tier} worker ready on .* \\(pid (\\d+)\\)$`).exec(line)?.[1] ?? []).map(Number));
    if (!url || workerPids.length < TIERS.length || (redisStarted && !redisPid)) return null;
    return { url, redisPid: redisPid ? Number(redisPid) : null, workerPids };
  };
  const found = await waitFor((): Started | 'exited' | null => (dev.process.exitCode === null ? seen() : 'exited'), { timeoutMs: START_MS, description: `dev ready:\n${dev.lines.join('\n')}` });
  if (found === 'exited') throw new Error(`dev exited (${dev.process.exitCode}):\n${dev.lines.join('\n')}`);
  pids.push(...found.workerPids, ...(found.redisPid ? [found.redisPid] : []));
  return found;
}

async function project(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tierflow-dev-'));
  dirs.push(dir);
  return dir;
}

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

interface ListedRun {
  readonly root_id: string;
  readonly status: string;
}

afterEach(async () => {
  for (const dev of started) {
    // A Redis it said it started, even where the test failed before reading it: its own process group outlives dev.
    for (const line of dev.lines) {
      const pid = /^dev: redis-server \(pid (\d+)\)/.exec(line)?.[1];
      if (pid) pids.push(Number(pid));
    }
    if (dev.process.exitCode === null && dev.process.signalCode === null) {
      dev.process.kill('SIGKILL');
      await dev.exited;
    }
  }
  for (const pid of pids.filter(isAlive)) process.kill(pid, 'SIGKILL');
  await redis?.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  started = [];
  pids = [];
  dirs = [];
  redis = undefined;
});

/** A project file whose specialist `shout` answers the objective in capitals. */
const SHOUT_PROJECT = `const shout = { name: 'shout', version: '1.0.0', run: async ({ objective }: { objective: string }) => ({ summary: objective.toUpperCase(), confidence: 0.9, artifacts: [] }) };\nexport default { specialists: [shout] };\n`;

/** The run as the API gives it, once it has an outcome. */
async function finishedRun(url: string, rootId: string): Promise<{ run?: unknown; outcome: { payload: { status: string } } }> {
  return waitFor(
    async () => {
      const body = (await (await fetch(`${url}/api/runs/${encodeURIComponent(rootId)}`)).json()) as { run?: unknown; outcome: { payload: { status: string } } | null };
      return body.outcome ? { ...body, outcome: body.outcome } : null;
    },
    { timeoutMs: 30_000, description: `an outcome for ${rootId}` },
  );
}

/** Enqueues an objective through the dashboard's page, as a person does, and waits for its success there. */
async function enqueueThroughPage(url: string): Promise<void> {
  const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(`${url}/`);
    await page.locator('#runs').waitFor();
    await page.locator('details.enqueue summary').click();
    await page.locator('#objective-file').fill(JSON.stringify(simPlan('all_success', [{ delay_ms: 300 }, { delay_ms: 300 }]), null, 2));
    await page.locator('#enqueue button[type="submit"]').click();
    await page.waitForURL(/\/runs\/[^/]+$/, { timeout: 20_000 });
    await page.locator('#run-status .status[data-status="success"]').waitFor({ timeout: 30_000 });
    await page.locator('#outcome .status[data-status="success"]').waitFor({ timeout: 20_000 });
    expect(problems).toEqual([]);
  } finally {
    await browser.close();
  }
}

describe('tierflow dev', () => {
  // One session and the next in the same project, rather than a dev for each claim: each start is a
  // Redis and four worker processes.
  it('starts a Redis, the four tiers with the project file’s specialists, and the dashboard; runs enqueued through the API and the page succeed; Ctrl-C stops them all; the runs are there at the next start', async () => {
    const cwd = await project();
    await writeFile(join(cwd, 'tierflow.config.ts'), SHOUT_PROJECT);
    const first = startDev(cwd);
    const { url, redisPid, workerPids } = await ready(first);
    expect(first.lines).toContain('dev: configured by tierflow.config.ts');

    expect((await fetch(`${url}/`)).status).toBe(200);
    const empty = await fetch(`${url}/api/runs`);
    expect(empty.status).toBe(200);
    expect(((await empty.json()) as { runs: ListedRun[] }).runs).toEqual([]);

    const enqueued = await post(`${url}/api/runs`, simPlan('all_success', [{}, { delay_ms: 200 }]));
    expect(enqueued.status, await enqueued.clone().text()).toBe(202);
    const { root_id: rootId } = (await enqueued.json()) as { root_id: string };
    expect((await finishedRun(url, rootId)).outcome.payload.status).toBe('success');
    expect(existsSync(join(cwd, '.tierflow', 'redis'))).toBe(true);

    // The project file's specialist runs here, as up does.
    const { root_id: shouted } = (await (await post(`${url}/api/runs`, simPlan('all_success', [{}], { specialist_hint: 'shout' }))).json()) as { root_id: string };
    const run = await finishedRun(url, shouted);
    expect(run.outcome.payload.status).toBe('success');
    expect(JSON.stringify(run.run)).toContain('"specialist":"shout"');

    // The dashboard's page enqueues too.
    await enqueueThroughPage(url);

    // Ctrl-C, to dev and its workers at once: every process dev started is gone once it has exited, none restarted.
    process.kill(-first.process.pid!, 'SIGINT');
    expect(await first.exited, first.lines.join('\n')).toBe(0);
    expect([redisPid!, ...workerPids].filter(isAlive)).toEqual([]);
    expect(first.lines.filter((line) => line.includes('restarting'))).toEqual([]);

    const second = startDev(cwd);
    const again = await ready(second);
    expect(again.redisPid).not.toBe(redisPid);
    const listed = (await (await fetch(`${again.url}/api/runs`)).json()) as { runs: ListedRun[] };
    expect(listed.runs).toContainEqual(expect.objectContaining({ root_id: rootId, status: 'success' }));
    expect(listed.runs).toContainEqual(expect.objectContaining({ root_id: shouted, status: 'success' }));
    expect(listed.runs).toHaveLength(3);
    second.process.kill('SIGTERM');
    expect(await second.exited, second.lines.join('\n')).toBe(0);
    expect([again.redisPid!, ...again.workerPids].filter(isAlive)).toEqual([]);
  }, 240_000);

  it('refuses to start a second redis-server on the data of one a killed dev left running', async () => {
    const cwd = await project();
    const killed = startDev(cwd);
    // Killed as soon as its Redis runs: what its workers would do after is beside the point (they
    // end with it, as a killed dev's workers do).
    const redisPid = await waitFor(() => killed.lines.map((line) => Number(/^dev: redis-server \(pid (\d+)\)/.exec(line)?.[1])).find(Boolean) ?? (killed.process.exitCode === null ? null : 'exited'), {
      timeoutMs: START_MS,
      description: `dev's redis-server:\n${killed.lines.join('\n')}`,
    });
    if (redisPid === 'exited') throw new Error(`dev exited (${killed.process.exitCode}):\n${killed.lines.join('\n')}`);
    killed.process.kill('SIGKILL');
    await killed.exited;
    // Its own process group: the server outlives a dev killed outright.
    expect(isAlive(redisPid)).toBe(true);

    const next = startDev(cwd);
    expect(await next.exited, next.lines.join('\n')).toBe(2);
    expect(next.lines).toContain(
      `dev: a redis-server (pid ${redisPid}) still runs on ${join(cwd, '.tierflow', 'redis')}, left by a tierflow dev that was killed: stop it (kill ${redisPid}) and start dev again`,
    );
    expect(isAlive(redisPid)).toBe(true);
  }, 90_000);

  it('uses the Redis at REDIS_URL when set, and starts none of its own', async () => {
    redis = await startRedisServer();
    const cwd = await project();
    const prefix = uniquePrefix('dev');
    const dev = startDev(cwd, plainEnv({ REDIS_URL: redis.url, TIERFLOW_PREFIX: prefix }));
    const { url } = await ready(dev, false);
    expect(dev.lines).toContain(`dev: using the Redis at REDIS_URL (${redis.url})`);
    expect(dev.lines.filter((line) => line.startsWith('dev: redis-server'))).toEqual([]);
    expect(existsSync(join(cwd, '.tierflow'))).toBe(false);

    const { root_id: rootId } = (await (await post(`${url}/api/runs`, simPlan('all_success', [{}]))).json()) as { root_id: string };
    await waitFor(async () => ((await (await fetch(`${url}/api/runs`)).json()) as { runs: ListedRun[] }).runs.some((run) => run.root_id === rootId && run.status === 'success'), {
      timeoutMs: 30_000,
      description: `${rootId} listed as a success`,
    });
    dev.process.kill('SIGINT');
    expect(await dev.exited, dev.lines.join('\n')).toBe(0);
    // The Redis it was given runs on, with the run in it.
    expect(isAlive(redis.pid)).toBe(true);
  }, 90_000);
});
