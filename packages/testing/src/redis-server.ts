import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestCertificates } from './certificates.js';
import { forgetDir, reapOnExit, removeOnExit } from './child-reaper.js';
import { findFreePort } from './free-port.js';
import { pingRedis } from './ping.js';
import { findRedisServerBinary, redisServerMissing } from './redis-binary.js';
import { waitFor } from './wait-for.js';
import { terminate } from './terminate.js';

/** How {@link startRedisServer} starts its server. */
export interface RedisServerOptions {
  /** Turn on the append-only file, for tests that kill the server and expect data back. */
  readonly appendOnly?: boolean;
  /** The working directory; a fresh temporary one (removed by `stop`) unless given. */
  readonly dir?: string;
  /** More `redis-server` arguments, after ours so they win, e.g. `['--appendfsync', 'always']`. */
  readonly args?: readonly string[];
  /** An ACL file (`--aclfile`): the users, and whether `default` may log in. */
  readonly aclFile?: string;
  /** TLS only: no plain port, the TLS port serves `rediss://`, and clients must show a certificate the CA signed. */
  readonly tls?: TestCertificates;
}

/** A private redis-server on a loopback port, owned by this process. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`, or `rediss://` with TLS */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** The current process id; it changes on `restart`. */
  readonly pid: number;
  /** Shuts down with SIGTERM, waits for the exit, and removes the directory if it was made here. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash would; the directory stays, for `restart`. */
  kill(): Promise<void>;
  /** Stops (if running) and starts again on the same port and directory; resolves once PING answers. */
  restart(): Promise<void>;
}

const PORT_ATTEMPTS = 5;
const READY_TIMEOUT_MS = 10_000;

/**
 * Starts `redis-server` on a free loopback port with no snapshots (`--save ""`), and resolves
 * once it answers PING. Each test file starts its own, so tests never touch a shared Redis:
 *
 * ```ts
 * let server: RedisServer;
 * beforeAll(async () => { server = await startRedisServer(); });
 * afterAll(() => server.stop());
 * ```
 *
 * A server left running is killed when this process exits.
 *
 * @throws Error when `redis-server` is not on PATH (saying how to install it), or does not start.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = findRedisServerBinary();
  if (binary === null) throw redisServerMissing();
  const ownsDir = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'tierflow-redis-')));
  if (ownsDir) removeOnExit(dir);
  const launch = (port: number): Promise<Launch> => launchRedis(binary, port, redisArgs(port, dir, options), options.tls);

  try {
    let child: ChildProcess | undefined;
    let port = 0;
    for (let attempt = 1; child === undefined; attempt++) {
      port = await findFreePort();
      const launched = await launch(port);
      if (launched.ok) child = launched.child;
      // Another process took the port between our probe and redis binding it: pick another.
      else if (!launched.portTaken || attempt >= PORT_ATTEMPTS) throw new Error(launched.error);
    }

    let current: ChildProcess = child;
    const server: RedisServer = {
      url: `${options.tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
      port,
      dir,
      get pid(): number {
        return current.pid ?? -1;
      },
      async stop() {
        await terminate(current, 'SIGTERM');
        if (ownsDir) {
          await rm(dir, { recursive: true, force: true });
          forgetDir(dir);
        }
      },
      async kill() {
        await terminate(current, 'SIGKILL');
      },
      async restart() {
        await terminate(current, 'SIGTERM');
        const launched = await launch(port);
        if (!launched.ok) throw new Error(`restart on the same port failed: ${launched.error}`);
        current = launched.child;
      },
    };
    return server;
  } catch (error) {
    if (ownsDir) await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

function redisArgs(port: number, dir: string, options: RedisServerOptions): string[] {
  return [
    '--save',
    '',
    '--appendonly',
    options.appendOnly === true ? 'yes' : 'no',
    '--bind',
    '127.0.0.1',
    ...(options.tls ? tlsArgs(port, options.tls) : ['--port', String(port)]),
    '--dir',
    dir,
    '--daemonize',
    'no',
    ...(options.aclFile === undefined ? [] : ['--aclfile', options.aclFile]),
    ...(options.args ?? []),
  ];
}

function tlsArgs(port: number, tls: TestCertificates): string[] {
  return ['--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.serverCert, '--tls-key-file', tls.serverKey, '--tls-ca-cert-file', tls.ca, '--tls-auth-clients', 'yes'];
}

type Launch = { readonly ok: true; readonly child: ChildProcess } | { readonly ok: false; readonly portTaken: boolean; readonly error: string };

/** Spawns redis-server and waits until it answers PING or exits. */
async function launchRedis(binary: string, port: number, args: readonly string[], tls: TestCertificates | undefined): Promise<Launch> {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  reapOnExit(child);
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // Keep the tail of the log: it says why a server that exits at once did so.
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-8_192);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });

  try {
    const state = await waitFor(
      async () => {
        if (spawnError !== undefined || child.exitCode !== null || child.signalCode !== null) return 'exited';
        return (await pingRedis(port, undefined, tls)) ? 'ready' : false;
      },
      { timeoutMs: READY_TIMEOUT_MS, description: `redis-server on port ${port} to answer PING` },
    );
    if (state === 'ready') return { ok: true, child };
  } catch (error) {
    await terminate(child, 'SIGKILL');
    return { ok: false, portTaken: false, error: `${(error as Error).message}\n${output}` };
  }
  // The server exited by itself: 'close' comes once its pipes are drained, so the log tail is complete.
  if (spawnError === undefined) await closed;
  const why = spawnError?.message ?? `exited with ${child.exitCode ?? child.signalCode}`;
  return {
    ok: false,
    portTaken: /address already in use/i.test(output),
    error: `redis-server ${args.join(' ')} ${why}:\n${output}`,
  };
}
