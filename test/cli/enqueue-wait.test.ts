import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OutcomeMessage } from '@tierflow/protocol';
import { redisClient, startRedisServer, uniquePrefix, waitFor, type RedisServer } from '@tierflow/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan } from '../support/runs.js';

// `tierflow enqueue --wait` as a user runs it, in a process of its own, against Redis faults.
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'cli', 'bin', 'tierflow.js');

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-wait-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface RunningCommand {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** The exit status once it exits (null for a signal), and when. */
  readonly exited: Promise<{ readonly code: number | null; readonly at: number }>;
}

/** Starts `tierflow enqueue <objective> --wait ...` without waiting for it. */
async function enqueueWait(objective: unknown, env: NodeJS.ProcessEnv, extra: readonly string[] = []): Promise<RunningCommand> {
  const file = join(dir, `${uniquePrefix('objective').replace(/[{}]/g, '')}.json`);
  await writeFile(file, JSON.stringify(objective));
  const child = spawn(process.execPath, [BIN, 'enqueue', file, '--wait', ...extra], {
    env: { ...process.env, OTEL_TRACES_EXPORTER: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() })));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** The root id the command prints on stderr first. */
function rootIdOf(command: RunningCommand): Promise<string> {
  return waitFor(() => /^(\S+)\n/.exec(command.stderr())?.[1] ?? null, { timeoutMs: 20_000, description: `a root id from the command; stderr: ${command.stderr()}` });
}

/** Redis's view of its clients: id and last command of each connection. */
async function clients(redis: Redis): Promise<{ id: string; cmd: string }[]> {
  const list = (await redis.client('LIST')) as string;
  return list
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => Object.fromEntries(line.split(' ').map((pair) => pair.split('=', 2) as [string, string])))
    .map((fields) => ({ id: fields.id ?? '', cmd: fields.cmd ?? '' }));
}

/** Waits until some connection's last command is `cmd` (`xread`: the command's listener is reading). */
function connectionDoing(redis: Redis, cmd: string): Promise<{ id: string; cmd: string }> {
  return waitFor(async () => (await clients(redis)).find((client) => client.cmd === cmd) ?? null, { timeoutMs: 20_000, description: `a connection doing ${cmd}` });
}

function stop(command: RunningCommand | undefined): void {
  if (command && command.child.exitCode === null && command.child.signalCode === null) command.child.kill('SIGKILL');
}

describe('tierflow enqueue --wait with no workers', () => {
  let server: RedisServer;
  let redis: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = redisClient(server.url);
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('exits non-zero saying the root no longer exists once Redis is flushed', async () => {
    const command = await enqueueWait({ objective: 'waits for a Monitor that is not there' }, { REDIS_URL: server.url, TIERFLOW_PREFIX: uniquePrefix('flush') });
    try {
      const rootId = await rootIdOf(command);
      await connectionDoing(redis, 'xread');
      await redis.flushall();
      const flushedAt = Date.now();
      const { code, at } = await command.exited;
      expect(code, command.stderr()).toBe(1);
      expect(command.stderr()).toContain(`no outcome for ${rootId}: root ${rootId} no longer exists: Redis was flushed or restarted without persistence`);
      expect(command.stderr()).toContain('[root_vanished]');
      expect(command.stdout()).toBe('');
      expect(at - flushedAt).toBeLessThan(15_000);
    } finally {
      stop(command);
    }
  });

  it("without --timeout-ms, gives up shortly after the objective's timeout_ms", async () => {
    const startedAt = Date.now();
    const command = await enqueueWait({ objective: 'nobody runs it', timeout_ms: 1_000 }, { REDIS_URL: server.url, TIERFLOW_PREFIX: uniquePrefix('limit') });
    try {
      const { code, at } = await command.exited;
      expect(code, command.stderr()).toBe(1);
      expect(command.stderr()).toMatch(/no outcome for \S+: timed out after 6000 ms waiting for root \S+ .*\[wait_timeout\]/);
      // 1 s of timeout and 5 s of grace, from just after the enqueue.
      expect(at - startedAt).toBeGreaterThanOrEqual(6_000);
      expect(at - startedAt).toBeLessThan(20_000);
    } finally {
      stop(command);
    }
  }, 40_000);
});

describe('tierflow enqueue --wait with the four tiers', () => {
  let deployment: Deployment;
  let redis: Redis;

  beforeAll(async () => {
    deployment = await startDeployment('enqueue-wait');
    redis = redisClient(deployment.redis.url);
  }, 60_000);

  afterAll(async () => {
    redis?.disconnect();
    await deployment?.stop();
  });

  const env = (): NodeJS.ProcessEnv => ({ REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix });
  const events = (): string => `${deployment.runtime.prefix}:monitor:events`;
  // A root that runs until it is cancelled, so the test decides when it ends.
  const longRun = simPlan('all_success', [{ delay_ms: 60_000 }]);

  it('survives malformed entries on the event stream and prints the real outcome', async () => {
    const command = await enqueueWait(longRun, env(), ['--timeout-ms', '40000']);
    try {
      const rootId = await rootIdOf(command);
      await connectionDoing(redis, 'xread');
      const junk: string[][] = [
        ['event', 'completed', 'jobId', rootId, 'returnvalue', '{not json'],
        ['event', 'completed', 'jobId', rootId, 'returnvalue', '{"forged":true}'],
        ['event', 'failed', 'jobId', rootId, 'failedReason', 'forged failure'],
        ['event', 'progress', 'jobId', rootId, 'data', '{not json'],
        ['event', 'error', 'message', 'not an error'],
        ['event', 'completed'],
        ['event', 'completed'],
        ['no', 'event', '__proto__', 'x'],
      ];
      for (const fields of junk) await redis.xadd(events(), '*', ...fields);
      await deployment.client.cancel(rootId, { reason: 'the test ends it' });
      const { code } = await command.exited;
      // A cancelled root is an outcome, not a success: exit 1, with the outcome printed.
      expect(code, command.stderr()).toBe(1);
      const outcome = JSON.parse(command.stdout()) as OutcomeMessage;
      expect(outcome.payload.status).toBe('cancelled');
      expect(command.stderr()).not.toContain('no outcome');
      // Each kind of bad entry is reported once.
      expect(command.stderr().match(/a completed event needs a jobId and a returnvalue/g)).toHaveLength(1);
      expect(command.stderr()).toContain('ignored a malformed entry');
    } finally {
      stop(command);
    }
  }, 60_000);

  it('prints the outcome of a root that ended while it was cut off and its event was trimmed', async () => {
    const command = await enqueueWait(longRun, env(), ['--timeout-ms', '40000']);
    try {
      const rootId = await rootIdOf(command);
      const listener = await connectionDoing(redis, 'xread');
      // The command stops (a laptop asleep), its stream connection drops, the root ends, and its
      // event is trimmed away before the command runs again.
      command.child.kill('SIGSTOP');
      await redis.client('KILL', 'ID', listener.id);
      await deployment.client.cancel(rootId, { reason: 'the test ends it' });
      await waitFor(async () => (await redis.hget(`${deployment.runtime.prefix}:monitor:${rootId}`, 'finishedOn')) !== null, {
        timeoutMs: 20_000,
        description: `root ${rootId} to finish`,
      });
      await redis.xtrim(events(), 'MAXLEN', 0);
      command.child.kill('SIGCONT');
      const resumedAt = Date.now();
      const { code, at } = await command.exited;
      expect(code, command.stderr()).toBe(1);
      expect((JSON.parse(command.stdout()) as OutcomeMessage).payload.status).toBe('cancelled');
      expect(at - resumedAt).toBeLessThan(15_000);
    } finally {
      stop(command);
    }
  }, 60_000);
});
