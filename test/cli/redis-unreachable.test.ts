import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCertificates, startRedisServer, waitFor, type RedisServer } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCommand } from '../support/run-command.js';

// Every client command, given a Redis it cannot use, says so in one line and exits 3 within the
// connect timeout (5 s by default), instead of waiting for ever. The passwords hold Q and Z,
// which appear in no message of ours: any Q or Z printed is a piece of a password.

// Where the failure itself tells (refused, unknown host, a refused password), the command must
// not wait for the timeout: given one longer than runCommand's 15 s, a command that exits 3 at
// all saw the failure. No clock to read, so no bound a loaded machine can break.
const NO_TIMEOUT = { TIERFLOW_CONNECT_TIMEOUT_MS: '60000' } as const;

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
  const started = performance.now();
  const { status, output } = await runCommand(
    args.map((arg) => (arg === '<objective>' ? objective : arg)),
    env,
  );
  return { status, output, ms: performance.now() - started };
}

/**
 * Runs `tierflow <args>` with rediss:// to the plain Redis through a relay here, which notes when
 * the command's connection opened and when it closed: how long the command waited on Redis, apart
 * from how long it took to start.
 */
async function timedConnection(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; output: string; ms: number; url: string; connectedMs: number }> {
  let opened: number | undefined;
  let closed: number | undefined;
  const relay = createServer((socket) => {
    opened ??= performance.now();
    const upstream = connect(plain.port, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => undefined);
    upstream.on('error', () => undefined);
    socket.on('close', () => {
      closed = performance.now();
      upstream.destroy();
    });
    upstream.on('close', () => socket.destroy());
  });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  try {
    const url = `rediss://127.0.0.1:${(relay.address() as AddressInfo).port}`;
    const run = await timed(args, { ...env, REDIS_URL: url });
    await waitFor(() => closed !== undefined, { timeoutMs: 10_000, description: `the connection of tierflow ${args.join(' ')} to close` });
    return { ...run, url, connectedMs: closed! - opened! };
  } finally {
    relay.close();
  }
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
  ['stats'],
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
    const { status, output } = await timed(args, { ...NO_TIMEOUT, REDIS_URL: 'redis://fleet:QZ-pw@127.0.0.1:9/0' });
    expect(status, output).toBe(3);
    expectOneLine(output, 'redis://fleet:***@127.0.0.1:9/0', /connection refused/);
  });

  it('unknown host', async () => {
    const { status, output } = await timed(['status', 'r-1'], { ...NO_TIMEOUT, REDIS_URL: 'redis://:QZ@no-such-host.invalid:6379' });
    expect(status, output).toBe(3);
    expectOneLine(output, 'redis://:***@no-such-host.invalid:6379', /unknown host/);
  });

  it('TLS against a plain port: gives up after the connect timeout, 5 s or TIERFLOW_CONNECT_TIMEOUT_MS', async () => {
    // Side by side, so the one wait costs the test once. Timed from the command's connecting to its
    // hanging up, which leaves out its start-up (seconds on a loaded machine): 0.5 s against 5 s.
    const [byDefault, configured] = await Promise.all([timedConnection(['runs'], {}), timedConnection(['workers'], { TIERFLOW_CONNECT_TIMEOUT_MS: '500' })]);
    expect(byDefault.status, byDefault.output).toBe(3);
    expectOneLine(byDefault.output, byDefault.url, /TLS.* 5 s/);
    expect(configured.status, configured.output).toBe(3);
    expectOneLine(configured.output, configured.url, /TLS.* 0\.5 s/);
    // A timer never fires early; had the setting been ignored, both would have waited 5 s.
    expect(byDefault.ms).toBeGreaterThanOrEqual(5_000);
    expect(configured.ms).toBeGreaterThanOrEqual(500);
    expect(configured.connectedMs).toBeLessThan(byDefault.connectedMs / 2);
  });

  it('wrong password', async () => {
    const { status, output } = await timed(['enqueue', '<objective>'], { ...NO_TIMEOUT, REDIS_URL: `redis://:WRONG-QZ@127.0.0.1:${guarded.port}` });
    expect(status, output).toBe(3);
    expectOneLine(output, `redis://:***@127.0.0.1:${guarded.port}`, /authentication failed/);
  });

  it('no password where the server needs one', async () => {
    const { status, output } = await timed(['runs'], { ...NO_TIMEOUT, REDIS_URL: `redis://127.0.0.1:${guarded.port}` });
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
      const { status, output } = await timed(['status', 'r-1'], { ...NO_TIMEOUT, REDIS_URL: url });
      expect(status, output).toBe(3);
      expectOneLine(output, url, /TLS/);
    });
  });
});

describe('a worker whose Redis cannot be reached', () => {
  it('keeps trying, and stops when told to, without waiting for Redis', async () => {
    const child = spawn(process.execPath, [BIN, 'worker', 'monitor'], {
      env: { ...process.env, OTEL_TRACES_EXPORTER: 'none', TIERFLOW_LOG: '', REDIS_URL: 'redis://127.0.0.1:9' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    try {
      // Its start-up alone takes seconds on a loaded machine.
      await waitFor(() => output.includes('unreachable'), { timeoutMs: 45_000, description: 'the worker to report Redis unreachable' });
      child.kill('SIGTERM');
      // Redis never comes: a worker that waited for it before stopping would not exit at all.
      const [code] = await exited;
      expect(code, output).toBe(0);
      expect(output).toContain('monitor worker stopped (SIGTERM) before it started');
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
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
