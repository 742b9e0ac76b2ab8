import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCertificates, startRedisServer, waitFor, type RedisServer } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCommand } from '../support/run-command.js';

// Every client command, given a Redis it cannot use, says so in one line and exits 3 within the
// connect timeout (5 s by default), instead of waiting for ever. The passwords hold Q and Z,
// which appear in no message of ours: any Q or Z printed is a piece of a password.
const MARGIN_MS = 4_000;

let dir: string;
let objective: string;
let plain: RedisServer;
let guarded: RedisServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-unreachable-'));
  objective = join(dir, 'objective.json');
  await writeFile(objective, JSON.stringify({ objective: 'never runs' }));
  [plain, guarded] = await Promise.all([startRedisServer(), startRedisServer({ args: ['--requirepass', 'the-right-one'] })]);
});

afterAll(async () => {
  await Promise.all([plain?.stop(), guarded?.stop()]);
  await rm(dir, { recursive: true, force: true });
});

/** Runs `tierflow <args>` and times it. */
async function timed(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; output: string; ms: number }> {
  const started = Date.now();
  const { status, output } = await runCommand(
    args.map((arg) => (arg === '<objective>' ? objective : arg)),
    env,
  );
  return { status, output, ms: Date.now() - started };
}

/** One line, no stack trace, no piece of a password, naming the URL as shown and the cause. */
function expectOneLine(output: string, url: string, cause: RegExp): void {
  const lines = output.trimEnd().split('\n');
  expect(lines, output).toHaveLength(1);
  expect(lines[0]).toContain(url);
  expect(lines[0]).toMatch(cause);
  expect(output).not.toMatch(/\n\s+at /);
  expect(output).not.toMatch(/[QZ]/);
}

const COMMANDS: readonly (readonly string[])[] = [
  ['enqueue', '<objective>'],
  ['enqueue', '<objective>', '--wait'],
  ['status', 'r-1'],
  ['runs'],
  ['workers'],
  ['watch', 'r-1'],
  ['cancel', 'r-1'],
  ['answer', 'r-1', 'yes'],
  ['audit', 'r-1'],
  ['dlq', 'list'],
  ['result', 'r-1'],
  ['trace', 'r-1'],
  ['serve', '--port', '0'],
  ['demo'],
  ['dev', '--port', '0'],
];

describe('a Redis that cannot be reached', () => {
  it.each(COMMANDS.map((args) => [args.join(' '), args] as const))('closed port: tierflow %s exits 3 at once, in one line', async (_name, args) => {
    // Port 9 (discard): nothing listens there.
    const { status, output, ms } = await timed(args, { REDIS_URL: 'redis://fleet:QZ-pw@127.0.0.1:9/0' });
    expect(status, output).toBe(3);
    expect(ms).toBeLessThan(5_000 + MARGIN_MS);
    expectOneLine(output, 'redis://fleet:***@127.0.0.1:9/0', /connection refused/);
  });

  it('unknown host', async () => {
    const { status, output, ms } = await timed(['status', 'r-1'], { REDIS_URL: 'redis://:QZ@no-such-host.invalid:6379' });
    expect(status, output).toBe(3);
    expect(ms).toBeLessThan(5_000 + MARGIN_MS);
    expectOneLine(output, 'redis://:***@no-such-host.invalid:6379', /unknown host/);
  });

  it('TLS against a plain port: gives up after the connect timeout', async () => {
    const url = `rediss://127.0.0.1:${plain.port}`;
    const { status, output, ms } = await timed(['runs'], { REDIS_URL: url });
    expect(status, output).toBe(3);
    expect(ms).toBeLessThan(5_000 + MARGIN_MS);
    expectOneLine(output, url, /TLS/);
  });

  it('the connect timeout is TIERFLOW_CONNECT_TIMEOUT_MS', async () => {
    const url = `rediss://127.0.0.1:${plain.port}`;
    const { status, output, ms } = await timed(['workers'], { REDIS_URL: url, TIERFLOW_CONNECT_TIMEOUT_MS: '500' });
    expect(status, output).toBe(3);
    expect(ms).toBeLessThan(500 + MARGIN_MS);
    expectOneLine(output, url, /TLS.*0\.5 s|0\.5 s.*TLS/);
  });

  it('wrong password', async () => {
    const { status, output, ms } = await timed(['enqueue', '<objective>'], { REDIS_URL: `redis://:WRONG-QZ@127.0.0.1:${guarded.port}` });
    expect(status, output).toBe(3);
    expect(ms).toBeLessThan(5_000 + MARGIN_MS);
    expectOneLine(output, `redis://:***@127.0.0.1:${guarded.port}`, /authentication failed/);
  });

  it('no password where the server needs one', async () => {
    const { status, output } = await timed(['runs'], { REDIS_URL: `redis://127.0.0.1:${guarded.port}` });
    expect(status, output).toBe(3);
    expectOneLine(output, `redis://127.0.0.1:${guarded.port}`, /needs a password/);
  });

  describe('plain against a TLS port', () => {
    let tls: RedisServer;
    beforeAll(async () => {
      tls = await startRedisServer({ tls: await makeTestCertificates(dir) });
    });
    afterAll(async () => {
      await tls?.stop();
    });

    it('says the server may want TLS', async () => {
      const url = `redis://127.0.0.1:${tls.port}`;
      const { status, output, ms } = await timed(['status', 'r-1'], { REDIS_URL: url });
      expect(status, output).toBe(3);
      expect(ms).toBeLessThan(5_000 + MARGIN_MS);
      expectOneLine(output, url, /TLS/);
    });
  });
});

describe('a worker whose Redis cannot be reached', () => {
  it('keeps trying, and stops at once when told to', async () => {
    const child = spawn(process.execPath, [BIN, 'worker', 'monitor'], {
      env: { ...process.env, OTEL_TRACES_EXPORTER: 'none', TIERFLOW_LOG: '', REDIS_URL: 'redis://127.0.0.1:9' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    try {
      await waitFor(() => output.includes('unreachable'), { timeoutMs: 10_000, description: 'the worker to report Redis unreachable' });
      child.kill('SIGTERM');
      const started = Date.now();
      const [code] = await exited;
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(code, output).toBe(0);
      expect(output).toContain('monitor worker stopped (SIGTERM) before it started');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('a closed pipe', () => {
  it('ends a command quietly, exit 0', async () => {
    // Standard output is closed before the command writes: each write meets EPIPE.
    const child = spawn(process.execPath, [BIN, 'schema', 'message'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
    const [code] = (await once(child, 'close')) as [number | null];
    expect(errors).toBe('');
    expect(code).toBe(0);
  });
});
