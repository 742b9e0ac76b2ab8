import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ObjectiveFile } from '@tierflow/runtime';
import { startRedisServer, uniquePrefix, type RedisServer } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'cli', 'bin', 'tierflow.js');

// The issue asks for 1 s; the rest is room for a slow, shared machine. Before the fix these took ~8 s.
const EXIT_BUDGET_MS = 2_000;

// Two subtasks: a first and an aggregate pass at each of three tiers, three sends (the Fleet's two
// subtasks go in one), two Fleet attempts.
const objective: ObjectiveFile = {
  objective: 'exit quickly',
  task_data: {
    plan: {
      strategy: 'all_success',
      subtasks: [
        { objective: 'first', task_data: { sim: {} } },
        { objective: 'second', task_data: { sim: {} } },
      ],
    },
  },
};
// Three passes that delegate and their three aggregate passes, and two Fleet attempts; each round sent is an event.
const SPANS_PER_ROOT = 8;

interface TimedRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** When the command last wrote to stdout (its root id, or its outcome), in ms since the epoch. */
  readonly lastOutputAt: number;
  readonly exitedAt: number;
}

/** Runs `tierflow <args>` and notes when it last printed and when it exited. */
function runTimed(args: readonly string[], env: NodeJS.ProcessEnv, input?: string): Promise<TimedRun> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let lastOutputAt = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    lastOutputAt = Date.now();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(input ?? '');
  return new Promise((resolve, reject) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      const exitedAt = Date.now();
      clearTimeout(kill);
      // 'exit' can come before the last stdout chunk is read; wait for the streams to end.
      child.once('close', () => resolve({ code, stdout, stderr, lastOutputAt, exitedAt }));
    });
  });
}

/** SIGTERM to each process at once; resolves with how long each took to exit. */
async function stopTimed(children: Iterable<ChildProcess>): Promise<number[]> {
  return Promise.all(
    [...children].map(
      (child) =>
        new Promise<number>((resolve) => {
          const sent = Date.now();
          child.once('exit', () => resolve(Date.now() - sent));
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** A loopback endpoint where nothing listens: a receiver's port, closed again. */
async function closedEndpoint(): Promise<string> {
  const receiver = await startOtlpReceiver();
  await receiver.close();
  return receiver.url;
}

function tracedEnv(endpoint: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { TIERFLOW_LOG: 'silent', OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, ...extra };
}

describe('with tracing on and no collector listening', () => {
  let endpoint: string;
  let redis: RedisServer;

  beforeAll(async () => {
    endpoint = await closedEndpoint();
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('tierflow enqueue exits within a second or so of printing the root id, and warns once', async () => {
    const run = await runTimed(['enqueue', '-'], { ...tracedEnv(endpoint), REDIS_URL: redis.url, TIERFLOW_PREFIX: uniquePrefix('exit-enqueue') }, JSON.stringify(objective));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^\S+\n$/);
    expect(run.exitedAt - run.lastOutputAt).toBeLessThan(EXIT_BUDGET_MS);
    expect(run.stderr.match(/telemetry:/g)).toHaveLength(1);
    expect(run.stderr).toContain('ECONNREFUSED');
  });

  describe('against a running deployment that traces too', () => {
    let deployment: Deployment;

    beforeAll(async () => {
      // Spans wait in the workers' buffers until shutdown, so the final flush is what is timed.
      deployment = await startDeployment('exit-wait', tracedEnv(endpoint, { OTEL_BSP_SCHEDULE_DELAY: '60000' }));
    }, 60_000);
    afterAll(async () => {
      await deployment?.stop();
    });

    it('tierflow enqueue --wait exits within a second or so of printing the outcome', async () => {
      const env = { ...tracedEnv(endpoint), REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix };
      const run = await runTimed(['enqueue', '--wait', '-'], env, JSON.stringify(objective));
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ payload: { status: 'success' } });
      expect(run.exitedAt - run.lastOutputAt).toBeLessThan(EXIT_BUDGET_MS);
    });

    it('each worker exits within a second or so of SIGTERM, though it holds spans it cannot send', async () => {
      const rootId = await deployment.client.enqueue(objective);
      expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
      const took = await stopTimed(deployment.tiers.children.values());
      for (const ms of took) expect(ms).toBeLessThan(EXIT_BUDGET_MS);
      const stopped = deployment.logs.filter((line) => line.includes('worker stopped'));
      expect(stopped).toHaveLength(4);
      for (const line of stopped) expect(line).toMatch(/worker stopped \(\d+ spans not exported\)$/);
    });
  });
});

describe('with a collector listening, spans still buffered at exit are delivered before it', () => {
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it("tierflow enqueue's root span", async () => {
    const redis = await startRedisServer();
    try {
      const run = await runTimed(['enqueue', '-'], { ...tracedEnv(receiver.url), REDIS_URL: redis.url, TIERFLOW_PREFIX: uniquePrefix('exit-delivered') }, JSON.stringify(objective));
      expect(run.code, run.stderr).toBe(0);
      const rootId = run.stdout.trim();
      expect(receiver.spans.filter((span) => span.serviceName === 'tierflow-cli' && span.attributes['tierflow.root_id'] === rootId)).toHaveLength(1);
      expect(run.stderr).toBe('');
    } finally {
      await redis.stop();
    }
  });

  it("the workers' spans, sent on SIGTERM", async () => {
    const deployment = await startDeployment('exit-delivered', tracedEnv(receiver.url, { OTEL_BSP_SCHEDULE_DELAY: '60000' }));
    let rootId = '';
    try {
      rootId = await deployment.client.enqueue(objective);
      expect((await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).payload.status).toBe('success');
    } finally {
      await deployment.stop();
    }
    const mine = receiver.spans.filter((span) => span.attributes['tierflow.root_id'] === rootId);
    expect(mine).toHaveLength(SPANS_PER_ROOT);
    expect(new Set(mine.map((span) => span.serviceName))).toEqual(new Set(['tierflow-monitor', 'tierflow-architect', 'tierflow-dispatcher', 'tierflow-fleet']));
  }, 60_000);
});
