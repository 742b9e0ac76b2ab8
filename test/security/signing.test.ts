import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DelegationDraft } from '@tierflow/runtime';
import { buildDelegation, controlKeys, signRecord, generateKeySet, rotateKey, signingFromEnv, type Signer, type SigningConfig } from '@tierflow/runtime/admin';
import { resolveRuntimeOptions, TierflowClient } from '@tierflow/runtime';
import { memoryKeySet } from '@tierflow/runtime/testing';
import type { OutcomeMessage } from '@tierflow/protocol';
import { redisClient, waitFor } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { finishedJob, submitJob } from '../support/queue-jobs.js';
import { simPlan, treeNodes } from '../support/runs.js';

// Four worker processes that sign, each with its own key from one key directory.
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps', 'cli', 'bin', 'tierflow.js');
const work: DelegationDraft = { task_type: 'general', objective: 'x', specialist_hint: 'sim' };

let keysDir: string;
let deployment: Deployment;
let redis: Redis;
let signing: SigningConfig;
let dispatcher: Signer;

beforeAll(async () => {
  keysDir = join(mkdtempSync(join(tmpdir(), 'tierflow-signing-')), 'keys');
  generateKeySet(keysDir);
  deployment = await startDeployment('signing', { TIERFLOW_LOG: 'silent', TIERFLOW_KEYS_DIR: keysDir });
  redis = redisClient(deployment.redis.url);
  signing = deployment.runtime.signing!;
  dispatcher = signing.keys.signer('dispatcher');
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await deployment?.stop();
  if (keysDir) rmSync(dirname(keysDir), { recursive: true, force: true });
});

const submit = (queue: string, id: string, data: unknown) => submitJob(redis, deployment.runtime.prefix, queue, id, data);
const fleetMessage = (id: string, signer: Signer | null = dispatcher, at = Date.now()) => buildDelegation('ROUTING_DISPATCHER', id, null, work, at, signer);

/** `message` as stored, with its signature's key id changed: a signature by one key claimed for another. */
function forgedUnder(keyId: string, message: object): unknown {
  const stored = JSON.parse(JSON.stringify(message)) as { signature: { key_id: string } };
  stored.signature.key_id = keyId;
  return stored;
}

function tierflow(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, TIERFLOW_KEYS_DIR: '', REDIS_URL: deployment.redis.url, TIERFLOW_PREFIX: deployment.runtime.prefix, ...env },
    encoding: 'utf8',
  });
}

async function expectRefused(queue: string, id: string, data: unknown, reason: string | RegExp): Promise<void> {
  const job = await submit(queue, id, data);
  expect(await job.isFailed()).toBe(true);
  expect(job.attemptsMade).toBe(1);
  const letter = await deployment.client.deadLetters().get(`${queue}-${id}`);
  expect(letter).toMatchObject({ queue, job_id: id });
  expect(letter?.reason).toMatch(reason);
}

describe('a deployment that signs', () => {
  it('runs a signed root through the four tiers, every hop signed by its sender, the root outcome by the Monitor', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{}, {}]));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('success');
    expect(outcome.signature).toMatchObject({ key_id: signing.keys.signer('monitor').keyId, alg: 'ed25519' });
    const fleet = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    try {
      const job = await fleet.getJob(`${rootId}.0-0.0-0.0-0`);
      expect(job?.data).toMatchObject({ signature: { key_id: dispatcher.keyId } });
      expect((job?.returnvalue as OutcomeMessage).signature).toMatchObject({ key_id: signing.keys.signer('fleet').keyId });
    } finally {
      await fleet.close();
    }
  });

  it('lets BullMQ run a job again (retries, resumed parents): the same job passes the replay check', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ fail_times: 2 }]));
    await expect(deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).resolves.toMatchObject({ payload: { status: 'success' } });
    const tree = await deployment.client.tree(rootId);
    expect(treeNodes(tree!, 'SPECIALIZED_FLEET')).toMatchObject([{ status: 'success', attempts: 3 }]);
  });

  it.each<[string, string, () => unknown, RegExp]>([
    ['unsigned', 'unsigned', () => fleetMessage('unsigned', null), /^signature_invalid: unsigned/],
    [
      'forged under the Dispatcher’s key id',
      'forged',
      () => forgedUnder(dispatcher.keyId, fleetMessage('forged', memoryKeySet().signer('dispatcher'))),
      /^signature_invalid: signature does not match/,
    ],
    [
      'signed with a key of another deployment',
      'unknown-key',
      () => fleetMessage('unknown-key', memoryKeySet().signer('dispatcher')),
      /^signature_invalid: signed with unknown key "dispatcher-[0-9a-f]{12}"/,
    ],
    [
      'signed by the Fleet, posing as the Dispatcher',
      'posing',
      () => fleetMessage('posing', signing.keys.signer('fleet')),
      /^signature_invalid: signed by fleet \(key "fleet-[0-9a-f]{12}"\), but only dispatcher may sign this/,
    ],
    [
      'altered after signing',
      'altered',
      () => ({ ...fleetMessage('altered'), payload: { ...fleetMessage('altered').payload, objective: 'something else' } }),
      /^signature_invalid: signature does not match/,
    ],
    ['signed long ago', 'stale', () => fleetMessage('stale', dispatcher, Date.now() - 10 * 60_000), /^message_stale: signed at/],
    ['put under another job id', 'other-id', () => fleetMessage('the-real-id'), /^job_id_mismatch: job other-id carries message the-real-id/],
  ])('refuses a delegation %s: dead-lettered with the reason, never retried', async (_name, id, data, reason) => {
    await expectRefused('fleet', id, data(), reason);
  });

  it('refuses a root objective from a client without a key, and one signed by a tier', async () => {
    const client = new TierflowClient(resolveRuntimeOptions({ ...deployment.runtime, signing: null }));
    try {
      const rootId = await client.enqueue({ objective: 'unsigned root' });
      await expect(deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).rejects.toThrow(/signature_invalid: unsigned/);
      expect((await deployment.client.deadLetters().get(`monitor-${rootId}`))?.reason).toMatch(/^signature_invalid/);
    } finally {
      await client.close();
    }
    const root = { kind: 'root', root_id: 'by-a-tier', submitted_at: new Date().toISOString(), objective: { objective: 'posing as the client' } };
    await expectRefused('monitor', 'by-a-tier', signRecord(root, signing.keys.signer('architect')), /^signature_invalid: signed by architect .* only client may sign this/);
  });

  it('refuses a replayed copy of a message already accepted, added again under its own id', async () => {
    const message = fleetMessage('replayed');
    const original = await submit('fleet', 'replayed', message);
    expect(await original.isCompleted()).toBe(true);
    await original.remove();
    await expectRefused('fleet', 'replayed', message, /^message_replayed: message replayed was already accepted as a job enqueued at/);
  });

  it('lists the refusals with their reasons in `tierflow dlq`, and replays one signed afresh', async () => {
    await expectRefused('fleet', 'to-resign', fleetMessage('to-resign', null), /^signature_invalid/);
    const list = tierflow(['dlq', 'list']);
    expect(list.stdout).toMatch(/fleet-to-resign {2}fleet {2}\S+ {2}signature_invalid: unsigned/);
    expect(list.stdout).toContain('message_replayed');
    expect(tierflow(['dlq', 'replay', 'fleet-to-resign', '--sign']).stderr).toContain('--sign needs TIERFLOW_KEYS_DIR');
    // Re-signed as its sender, the Dispatcher: the operator's key directory holds that key.
    expect(tierflow(['dlq', 'replay', 'fleet-to-resign', '--sign'], { TIERFLOW_KEYS_DIR: keysDir }).stdout).toContain('replayed fleet-to-resign onto fleet as to-resign');
    const fleet = new Queue('fleet', { connection: redis, prefix: deployment.runtime.prefix });
    try {
      const job = await finishedJob(fleet, 'to-resign');
      expect((job.returnvalue as OutcomeMessage).payload.status).toBe('success');
    } finally {
      await fleet.close();
    }
  });
});

describe('key rotation, with the workers running', () => {
  it('accepts what a rotated-out key signed, and what the new key signs, without restarting anyone', async () => {
    const before = signingFromEnv({ TIERFLOW_KEYS_DIR: keysDir })!.keys.signer('dispatcher');
    const fresh = rotateKey(keysDir, 'dispatcher');
    const after = signingFromEnv({ TIERFLOW_KEYS_DIR: keysDir })!.keys.signer('dispatcher');
    expect(after.keyId).toBe(fresh.key_id);
    for (const [id, signer] of [
      ['by-old-key', before],
      ['by-new-key', after],
    ] as const) {
      const job = await submit('fleet', id, fleetMessage(id, signer));
      expect(await job.isCompleted(), id).toBe(true);
    }
  });

  it('runs a root enqueued by a client still holding its rotated-out key', async () => {
    const started = signingFromEnv({ TIERFLOW_KEYS_DIR: keysDir })!;
    started.keys.signer('client');
    rotateKey(keysDir, 'client');
    const client = new TierflowClient(resolveRuntimeOptions({ ...deployment.runtime, signing: started }));
    try {
      const rootId = await client.enqueue(simPlan('all_success', [{}]));
      await expect(deployment.client.waitForResult(rootId, { timeoutMs: 20_000 })).resolves.toMatchObject({ payload: { status: 'success' } });
    } finally {
      await client.close();
    }
  });
});

describe('signed control records', () => {
  const runningLeaf = async (rootId: string): Promise<string> => {
    let leaf: string | undefined;
    await waitFor(
      async () => {
        const tree = await deployment.client.tree(rootId);
        leaf = tree ? treeNodes(tree, 'SPECIALIZED_FLEET').find((node) => node.status === 'running')?.id : undefined;
        return leaf !== undefined;
      },
      { description: 'the leaf running' },
    );
    return leaf!;
  };

  it('a cancellation mark and notice written by someone without the key stop nothing', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 1_500 }]));
    const leaf = await runningLeaf(rootId);
    const keys = controlKeys(deployment.runtime.prefix);
    const forged = { version: '1.0', id: `${leaf}.cancel`, payload: { target_message_id: leaf, reason: 'forged', cascade: true } };
    await redis.set(keys.cancel('client', leaf), JSON.stringify(forged));
    await redis.spublish(keys.channel, JSON.stringify({ kind: 'cancel', ids: [leaf], reason: 'forged', status: 'cancelled' }));
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('success');
  });

  it('a signed cancellation from the client stops the run', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ delay_ms: 10_000 }]));
    await runningLeaf(rootId);
    expect(await deployment.client.cancel(rootId, { reason: 'operator' })).toMatchObject({ outcome: 'cancelled' });
    const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('cancelled');
    const mark = JSON.parse((await redis.get(controlKeys(deployment.runtime.prefix).cancel('client', rootId))) ?? 'null') as { signature?: unknown } | null;
    // The mark is removed once the root has answered; while it lived it was signed (checked by the run stopping at all).
    expect(mark === null || mark.signature !== undefined).toBe(true);
  });

  it("an answer without the client's signature answers nothing; a signed one resumes the run", async () => {
    const { client } = deployment;
    const rootId = await client.enqueue(simPlan('all_success', [{ ask: 'Which region?' }]));
    let questionId = '';
    await waitFor(
      async () => {
        const tree = await client.tree(rootId);
        questionId = tree?.questions?.[0]?.id ?? '';
        return tree?.status === 'input_required';
      },
      { description: 'the run to ask' },
    );
    const keys = controlKeys(deployment.runtime.prefix);
    await redis.hset(keys.answers(rootId), questionId, JSON.stringify({ question_id: questionId, answer: 'forged', answered_at: Date.now() }));
    // Woken as an answer would wake it: it reads the forged record, ignores it, and waits on.
    const monitor = new Queue('monitor', { connection: redis, prefix: deployment.runtime.prefix });
    // The run shows input_required as soon as its questions are recorded, while its pass may still be moving the job to the delayed set.
    await waitFor(async () => (await (await monitor.getJob(rootId))?.getState()) === 'delayed', { description: 'the root job in the delayed set' });
    await (await monitor.getJob(rootId))?.promote();
    await monitor.close();
    await waitFor(async () => (await client.tree(rootId))?.status === 'input_required', { description: 'the run to wait on' });
    expect((await client.tree(rootId))?.questions?.[0]?.answer).toBeNull();
    expect(await client.answer(rootId, 'eu-west')).toMatchObject({ open: 0, resumed: true });
    const outcome = await client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('success');
    expect(outcome.payload.artifacts.map((artifact) => artifact.inline_content)).toContain('eu-west');
  });
});
