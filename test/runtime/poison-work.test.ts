import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { OutcomeMessage } from '@tierflow/protocol';
import { ERROR_TYPES } from '@tierflow/protocol';
import { redisClient, waitFor } from '@tierflow/testing';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { simPlan, treeNodes } from '../support/runs.js';

// Its own process: importing it would start a Fleet worker here.
const CRASHING_FLEET = fileURLToPath(new URL('../dist/support/crashing-fleet.js', import.meta.url));

// Short locks, so a dead worker's job is taken back in about lock + stalled interval (3 s).
const FAST_RECLAIM = { TIERFLOW_LOG: 'silent', TIERFLOW_LOCK_DURATION_MS: '2000', TIERFLOW_STALLED_INTERVAL_MS: '1000' };

/** A Fleet process that serves the `crash` specialist, started again each time it dies, as a supervisor would. */
interface CrashingFleet {
  /** How many times a Fleet process died (each death is one run of the crashing specialist). */
  deaths(): number;
  /** What its processes printed, oldest first. */
  readonly lines: string[];
  stop(): Promise<void>;
}

function startCrashingFleet(env: NodeJS.ProcessEnv): CrashingFleet {
  let deaths = 0;
  let stopping = false;
  let current: ChildProcess;
  const lines: string[] = [];
  const start = (): void => {
    const child = spawn(process.execPath, [CRASHING_FLEET], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
    child.once('exit', () => {
      if (stopping) return;
      deaths++;
      start();
    });
    current = child;
  };
  start();
  return {
    deaths: () => deaths,
    lines,
    stop: async () => {
      stopping = true;
      if (current.exitCode !== null || current.signalCode !== null) return;
      const exited = new Promise((resolve) => current.once('exit', resolve));
      current.kill('SIGKILL');
      await exited;
    },
  };
}

let deployment: Deployment | undefined;
let fleet: CrashingFleet | undefined;

afterEach(async () => {
  await fleet?.stop();
  await deployment?.stop();
  fleet = deployment = undefined;
});

/** Three tiers as usual, and a Fleet that serves the crashing specialists, started again each time it dies. */
async function startPoisonDeployment(label: string): Promise<{ deployment: Deployment; fleet: CrashingFleet }> {
  deployment = await startDeployment(label, FAST_RECLAIM, { tiers: ['monitor', 'architect', 'dispatcher'] });
  const { redis, runtime } = deployment;
  fleet = startCrashingFleet({ ...process.env, ...FAST_RECLAIM, OTEL_TRACES_EXPORTER: 'none', REDIS_URL: redis.url, TIERFLOW_PREFIX: runtime.prefix });
  return { deployment, fleet };
}

/** One subtask for `specialist`, with deadlines far off, so that what ends the run is the crashes, not a watchdog. */
function crashingRun(specialist: string) {
  return { ...simPlan('all_success', [{}], { specialist_hint: specialist, timeout_ms: 180_000 }), timeout_ms: 190_000 };
}

describe('poison work', () => {
  it('a Fleet job whose worker dies on every try is answered failed/worker_crashed after 3 deaths, and the root gets that outcome', async () => {
    const { deployment, fleet } = await startPoisonDeployment('poison');
    const { client } = deployment;
    const rootId = await client.enqueue(crashingRun('crash'));

    const outcome = await client.waitForResult(rootId, { timeoutMs: 180_000 });
    expect(outcome.payload).toMatchObject({ status: 'failed', recoverable: false });
    expect(outcome.payload.error_detail).toContain('worker died 3 times');

    // Not recoverable, so neither revised nor reset: one Fleet job, whose handler ran three times.
    const [leaf, ...others] = treeNodes((await client.tree(rootId))!, 'SPECIALIZED_FLEET');
    expect(others).toEqual([]);
    expect(fleet.deaths()).toBe(3);
    const leafOutcome = await leafOutcomeOf(deployment, leaf!.id);
    expect(leafOutcome.payload).toMatchObject({ status: 'failed', error_type: ERROR_TYPES.workerCrashed, recoverable: false });
    expect(leafOutcome.payload.error_detail).toMatch(/worker died 3 times/);
  }, 210_000);

  it('a job whose worker died after its run was recorded answers from the record, not as poison, however often it died', async () => {
    const { deployment, fleet } = await startPoisonDeployment('poison-recorded');
    const { client } = deployment;
    const rootId = await client.enqueue(crashingRun('finish-then-crash'));

    const outcome = await client.waitForResult(rootId, { timeoutMs: 180_000 });
    expect(outcome.payload.status).toBe('success');
    expect(fleet.deaths()).toBe(3);
    // The specialist ran to completion once: later tries answered from its record.
    const redis = redisClient(deployment.redis.url);
    try {
      const prefix = `${deployment.runtime.prefix}:beads:execution`;
      expect((await redis.keys(`${prefix}/finished/*`)).length).toBe(1);
      expect(await redis.keys(`${prefix}/duplicates/*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  }, 210_000);
});

describe('poison work beside innocent work', () => {
  it('one root whose specialist kills its Fleet, run beside ten innocent roots on that Fleet, is answered worker_crashed; the ten succeed', async () => {
    const { deployment, fleet } = await startPoisonDeployment('poison-bystanders');
    const { client } = deployment;
    const innocents = await Promise.all(Array.from({ length: 10 }, () => client.enqueue(crashingRun('linger'))));
    // All ten in flight on the Fleet before the poison arrives, so its first death takes them along.
    await waitFor(() => fleet.lines.includes('lingering 10'), { timeoutMs: 30_000, description: `ten innocent jobs running on the Fleet:\n${fleet.lines.join('\n')}` });
    const poison = await client.enqueue(crashingRun('crash-in-company'));

    const outcome = await client.waitForResult(poison, { timeoutMs: 150_000 });
    expect(outcome.payload).toMatchObject({ status: 'failed', recoverable: false });
    const [leaf] = treeNodes((await client.tree(poison))!, 'SPECIALIZED_FLEET');
    expect((await leafOutcomeOf(deployment, leaf!.id)).payload).toMatchObject({ status: 'failed', error_type: ERROR_TYPES.workerCrashed });
    // Its deaths took the innocent ones along: at least once with all ten beside it.
    expect(fleet.lines).toContain('crashing with 10 beside');

    const answers = await Promise.all(innocents.map((id) => client.waitForResult(id, { timeoutMs: 150_000 })));
    expect(answers.map((answer) => [answer.payload.status, answer.payload.error_type ?? null])).toEqual(innocents.map(() => ['success', null]));
  }, 240_000);
});

async function leafOutcomeOf(current: Deployment, id: string): Promise<OutcomeMessage> {
  const redis = redisClient(current.redis.url);
  const queue = new Queue('fleet', { connection: redis, prefix: current.runtime.prefix });
  try {
    return (await queue.getJob(id))!.returnvalue as OutcomeMessage;
  } finally {
    await queue.close();
    redis.disconnect();
  }
}
