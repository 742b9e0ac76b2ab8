import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OutcomeMessage } from '@tierflow/protocol';
import { buildDelegation } from '@tierflow/runtime/admin';
import { redisClient } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { finishedJob, submitJob } from '../support/queue-jobs.js';
import { simPlan } from '../support/runs.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'cli', 'bin', 'tierflow.js');
let deployment: Deployment;
let redis: Redis;
let dir: string;

beforeAll(async () => {
  deployment = await startDeployment('bad-input', { TIERFLOW_LOG: 'silent' });
  redis = redisClient(deployment.redis.url);
  dir = mkdtempSync(join(tmpdir(), 'tierflow-dlq-'));
}, 60_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  redis?.disconnect();
  await deployment?.stop();
});

function tierflow(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix },
    encoding: 'utf8',
  });
}

function fleetDelegation(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...buildDelegation('ROUTING_DISPATCHER', id, null, { task_type: 'general', objective: 'x', specialist_hint: 'sim' }, Date.now()), ...extra };
}

const submit = (queueName: string, id: string, data: unknown) => submitJob(redis, deployment.runtime.prefix, queueName, id, data);

describe('bad input on a tier queue', () => {
  const tooManySubtasks = { strategy: 'all_success', subtasks: Array.from({ length: 257 }, (_, index) => ({ objective: `s${index}` })) };
  const outcome = {
    version: '1.0.0',
    id: 'bad-outcome',
    timestamp: '2025-01-15T10:30:00Z',
    source_tier: 'SPECIALIZED_FLEET',
    target_tier: 'ROUTING_DISPATCHER',
    correlation_id: 'x',
    payload: { status: 'success', summary: 's', confidence: 0.9, execution_time_ms: 1, artifacts: [{ artifact_type: 'text', inline_content: 'x'.repeat(2048) }] },
  };

  it.each<[string, string, string, unknown, string]>([
    ['a bad shape', 'fleet', 'bad-shape', { hello: 'world' }, 'invalid message'],
    [
      'the wrong tier',
      'fleet',
      'wrong-tier',
      buildDelegation('ABSTRACT_ARCHITECT', 'wrong-tier', null, { task_type: 't', objective: 'o' }, Date.now()),
      'addressed to ROUTING_DISPATCHER, not to SPECIALIZED_FLEET',
    ],
    ['an unknown major version', 'fleet', 'major-two', fleetDelegation('major-two', { version: '2.0.0' }), 'unsupported protocol version "2.0.0"'],
    ['an upward delegation', 'dispatcher', 'upward', { ...fleetDelegation('upward'), source_tier: 'SPECIALIZED_FLEET', target_tier: 'ROUTING_DISPATCHER' }, 'a delegation must go down'],
    ['an oversized inline artifact', 'fleet', 'bad-outcome', outcome, 'inline_content is 2048 bytes'],
    [
      'a root objective with a misspelt field',
      'monitor',
      'bad-root',
      { kind: 'root', root_id: 'bad-root', submitted_at: '2025-01-15T10:30:00Z', objective: { objectiv: 'typo' } },
      'not a root objective',
    ],
    [
      'a root objective with more subtasks than the deployment takes',
      'monitor',
      'huge-root',
      { kind: 'root', root_id: 'huge-root', submitted_at: new Date().toISOString(), objective: { objective: 'x', task_data: { plan: tooManySubtasks } } },
      'input_too_large: the objective has 257 subtasks, more than the limit of 256',
    ],
    [
      'a delegation with more subtasks than the deployment takes',
      'architect',
      'huge-plan',
      buildDelegation('PROGRESS_MONITOR', 'huge-plan', null, { task_type: 'solve', objective: 'o', task_data: { plan: tooManySubtasks } }, Date.now()),
      'input_too_large: the delegation has 257 subtasks, more than the limit of 256',
    ],
  ])('%s is refused at once, not retried, and kept as a dead letter with its reason', async (_name, queue, id, data, reason) => {
    const job = await submit(queue, id, data);
    expect(await job.isFailed()).toBe(true);
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toContain(reason);
    const letter = await deployment.client.deadLetters().get(`${queue}-${id}`);
    expect(letter).toMatchObject({ queue, job_id: id, data });
    expect(letter?.reason).toContain(reason);
  });

  it('lets unknown fields of a known minor version through', async () => {
    const job = await submit('fleet', 'minor-three', fleetDelegation('minor-three', { version: '1.3.0', routing_hint: 'eu' }));
    expect(await job.isCompleted()).toBe(true);
    expect((job.returnvalue as OutcomeMessage).payload.status).toBe('success');
  });

  it('lists, shows and replays dead letters from the tierflow command, corrected', async () => {
    await submit('fleet', 'fix-me', fleetDelegation('fix-me', { version: '9.0.0' }));
    expect(tierflow(['dlq', 'list']).stdout).toContain('fleet-fix-me  fleet');
    expect(JSON.parse(tierflow(['dlq', 'show', 'fleet-fix-me']).stdout)).toMatchObject({ job_id: 'fix-me' });
    const fixed = join(dir, 'fixed.json');
    writeFileSync(fixed, JSON.stringify(fleetDelegation('fix-me')));
    const replay = tierflow(['dlq', 'replay', 'fleet-fix-me', '--file', fixed]);
    expect(replay.stdout).toContain('replayed fleet-fix-me onto fleet as fix-me');
    const fleet = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    try {
      const job = await finishedJob(fleet, 'fix-me');
      expect((job.returnvalue as OutcomeMessage).payload.status).toBe('success');
    } finally {
      await fleet.close();
    }
    expect(await deployment.client.deadLetters().get('fleet-fix-me')).toBeNull();
    // Standard input is a pipe here, not a terminal to ask on: without --yes nothing is deleted.
    const unconfirmed = tierflow(['dlq', 'purge']);
    expect([unconfirmed.status, unconfirmed.stderr]).toEqual([2, expect.stringContaining('give --yes to confirm')]);
    expect(tierflow(['dlq', 'purge', '--yes']).stdout).toMatch(/purged \d+ dead letters/);
    expect(tierflow(['dlq', 'list']).stdout).toBe('no dead letters\n');
  });
});

describe('tierflow result', () => {
  it("prints a finished root's outcome, for a client that stopped waiting", async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}]));
    // Seconds alone; far longer on a machine busy with the rest of the suite.
    await deployment.client.waitForResult(rootId, { timeoutMs: 45_000 });
    const result = tierflow(['result', rootId]);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ source_tier: 'ABSTRACT_ARCHITECT', payload: { status: 'success' } });
    expect(tierflow(['result', 'no-such-root']).status).toBe(1);
  }, 60_000);
});
