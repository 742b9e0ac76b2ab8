import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { TierflowError } from '@tierflow/protocol';
import { findRedisServerBinary, terminate, waitFor } from '@tierflow/testing';

/** The redis-server `tierflow dev` started for itself. */
export interface DevRedis {
  readonly url: string;
  readonly pid: number;
  /** SIGTERM (redis-server writes its append-only file and exits), then waits for the exit. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;

/** What to say when redis-server is not installed: how to get it, or how to use another Redis. */
export const NO_REDIS_SERVER =
  'tierflow dev starts a redis-server of its own, and none is on PATH: install Redis 7 (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis),\n' +
  'or set REDIS_URL to a Redis you run (e.g. `docker compose -f infra/docker-compose.yml up -d` and REDIS_URL=redis://127.0.0.1:6379).\n';

/**
 * Starts redis-server on 127.0.0.1:`port` with its data in `dir` (an append-only file, so what it
 * held is there again at the next start), and resolves once it answers PING. It runs in a process
 * group of its own: Ctrl-C reaches the workers first, and the server stops after them, when
 * `stop` is called; should this process exit without calling it, the server is killed with it.
 * A server left running by a process killed outright (SIGKILL) is found by its pid file at the
 * next start, which refuses to start a second one on the same data.
 *
 * @throws TierflowError `redis_unavailable` when it is not installed or does not start, `redis_in_use` when one left running holds the data.
 */
export async function startDevRedis(dir: string, port: number): Promise<DevRedis> {
  const binary = findRedisServerBinary();
  if (binary === null) throw new TierflowError(NO_REDIS_SERVER.trimEnd(), { code: 'redis_unavailable' });
  await mkdir(dir, { recursive: true });
  const pidFile = join(dir, 'redis-server.pid');
  const earlier = await runningServer(pidFile);
  // Two servers on one append-only file would each overwrite what the other wrote.
  if (earlier !== null) {
    throw new TierflowError(`a redis-server (pid ${earlier}) still runs on ${dir}, left by a tierflow dev that was killed: stop it (kill ${earlier}) and start dev again`, {
      code: 'redis_in_use',
    });
  }
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--pidfile', pidFile, '--appendonly', 'yes', '--save', '', '--daemonize', 'no', '--protected-mode', 'yes'];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const reap = (): void => void child.kill('SIGKILL');
  process.once('exit', reap);
  // The tail of its log says why a server that exits at once did so (a port in use, say).
  let log = '';
  const keep = (chunk: Buffer): void => void (log = (log + chunk.toString('utf8')).slice(-4_096));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));
  const exited = (): boolean => spawnError !== undefined || child.exitCode !== null || child.signalCode !== null;
  const state = await waitFor(async () => (exited() ? 'exited' : (await answers(port)) ? 'ready' : false), {
    timeoutMs: READY_TIMEOUT_MS,
    description: `redis-server on port ${port} to answer PING`,
  }).catch(() => 'late' as const);
  if (state !== 'ready') {
    await terminate(child, 'SIGKILL');
    process.off('exit', reap);
    const why = spawnError?.message ?? (state === 'late' ? `did not answer within ${READY_TIMEOUT_MS / 1000} s` : `exited (${child.exitCode ?? child.signalCode})`);
    throw new TierflowError(`redis-server on port ${port} ${why}:\n${log.trim()}`, { code: 'redis_unavailable' });
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async () => {
      await terminate(child, 'SIGTERM');
      process.off('exit', reap);
    },
  };
}

/**
 * The pid in `pidFile` when that process runs and is a redis-server (where /proc says; elsewhere,
 * any process), else null. redis-server removes the file when it shuts down cleanly.
 */
async function runningServer(pidFile: string): Promise<number | null> {
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => null);
  return command === null || command.includes('redis-server') ? pid : null;
}

/** Whether a Redis answers PING on this loopback port, over a bare socket (a client would retry and log). */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}
