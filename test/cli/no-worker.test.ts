import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { serveDeployment } from '../support/served.js';
import { BIN, runCommand } from '../support/run-command.js';

// Every tier but the Monitor: a run sits in the Monitor's queue, and the views say why.
const NO_MONITOR = /no monitor worker is running/;

let deployment: Deployment;
let dir: string;
let objective: string;

beforeAll(async () => {
  deployment = await startDeployment('no-monitor', { TIERFLOW_LOG: 'silent', TIERFLOW_HEARTBEAT_MS: '200' }, { tiers: ['architect', 'dispatcher', 'fleet'] });
  dir = await mkdtemp(join(tmpdir(), 'tierflow-no-monitor-'));
  objective = join(dir, 'objective.json');
  await writeFile(objective, JSON.stringify({ objective: 'waits for a Monitor' }));
}, 60_000);

afterAll(async () => {
  await deployment?.stop();
  await rm(dir, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({ REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix });

describe('a run no worker serves', () => {
  it('enqueue --wait says no monitor worker is running, and goes on waiting', async () => {
    const { status, output } = await runCommand(['enqueue', objective, '--wait'], env(), { enough: (text) => NO_MONITOR.test(text) });
    expect(output).toMatch(NO_MONITOR);
    // Still waiting for the run when it said so: a Monitor started later would take it.
    expect(status, output).toBeNull();
  });

  it('status says so below the tree', async () => {
    const rootId = await deployment.client.enqueue({ objective: 'waits for a Monitor' });
    const { status, output } = await runCommand(['status', rootId], env());
    expect(status, output).toBe(0);
    expect(output).toContain(rootId);
    expect(output).toMatch(NO_MONITOR);
  });

  it('watch says so, and `tierflow watch <id> | head -1` ends quietly', async () => {
    const rootId = await deployment.client.enqueue({ objective: 'waits for a Monitor' });
    const watched = await runCommand(['watch', rootId], env(), { enough: (text) => NO_MONITOR.test(text) });
    expect(watched.output).toMatch(NO_MONITOR);
    // head takes the first line and goes; watch's next line (the note) meets a closed pipe.
    const pipeline = spawn('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${BIN}" watch ${rootId} | head -1`], {
      env: { ...process.env, OTEL_TRACES_EXPORTER: 'none', ...env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let errors = '';
    pipeline.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    pipeline.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
    const timer = setTimeout(() => pipeline.kill('SIGKILL'), 15_000);
    const [code] = (await once(pipeline, 'close')) as [number | null];
    clearTimeout(timer);
    expect(out.trimEnd().split('\n'), out).toHaveLength(1);
    expect(out).toContain(rootId);
    expect(errors).toBe('');
    expect(code).toBe(0);
  });

  it("the API's run says so, for the dashboard to show", async () => {
    const rootId = await deployment.client.enqueue({ objective: 'waits for a Monitor' });
    const served = await serveDeployment(deployment.runtime);
    try {
      const response = await fetch(`${served.url}/api/runs/${rootId}`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { unserved: string[] };
      expect(body.unserved).toEqual([expect.stringMatching(NO_MONITOR)]);
    } finally {
      await served.close();
    }
  });
});
