import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDelegation, controlKeys, generateKeySet, signingFromEnv, signRecord, type Signer } from '@tierflow/runtime/admin';
import { buildOutcome } from '@tierflow/runtime/policy';
import { resolveRuntimeOptions, TierflowClient } from '@tierflow/runtime';
import { redisClient, uniquePrefix, waitFor } from '@tierflow/testing';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitJob } from '../support/queue-jobs.js';
import { simPlan, treeNodes } from '../support/runs.js';
import { startAclRedis, type AclRedis, startTiers, type RunningTiers } from './tier-processes.js';

// A deployment that signs and confines each tier to its own Redis user, attacked by whoever holds
// the Fleet's credentials: its Redis user and its private key. Nothing they forge may pass for
// another tier or the client; each refusal says why, and a refused message is kept.
let dir: string;
let keysDir: string;
let acl: AclRedis;
let prefix: string;
const tiers: RunningTiers[] = [];
let client: TierflowClient;
let fleetRedis: Redis;
let fleetKey: Signer;

const tierEnv = (): NodeJS.ProcessEnv => ({ REDIS_URL: acl.server.url, TIERFLOW_PREFIX: prefix, TIERFLOW_KEYS_DIR: keysDir, TIERFLOW_LOG: 'silent', ...acl.tierUrls });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-fleet-identity-'));
  keysDir = join(dir, 'keys');
  generateKeySet(keysDir);
  prefix = uniquePrefix('identity');
  acl = await startAclRedis(dir, prefix);
  // The genuine Dispatcher joins later: first a forger takes its queue.
  tiers.push(await startTiers(tierEnv(), ['monitor', 'architect', 'fleet']));
  const signing = signingFromEnv({ TIERFLOW_KEYS_DIR: keysDir });
  client = new TierflowClient(resolveRuntimeOptions({ redisUrl: acl.urlFor('client'), prefix, signing }));
  fleetRedis = redisClient(acl.urlFor('fleet'));
  fleetKey = signing!.keys.signer('fleet');
}, 60_000);

afterAll(async () => {
  await client?.close();
  fleetRedis?.disconnect();
  for (const running of tiers) await running.processes.stop();
  await acl?.server.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("whoever holds the Fleet's Redis user and key", () => {
  it('cannot delegate work to the Fleet in the Dispatcher’s name: dead-lettered with the reason', async () => {
    const forged = buildDelegation('ROUTING_DISPATCHER', 'forged-work', null, { task_type: 'general', objective: 'exfiltrate', specialist_hint: 'sim' }, Date.now(), fleetKey);
    const job = await submitJob(fleetRedis, prefix, 'fleet', 'forged-work', forged);
    expect(await job.isFailed()).toBe(true);
    const letter = await client.deadLetters().get('fleet-forged-work');
    expect(letter?.reason).toMatch(/^signature_invalid: signed by fleet \(key "fleet-[0-9a-f]{12}"\), but only dispatcher may sign this/);
    expect(letter?.data).toEqual(forged);
  });

  it('cannot start a root in the client’s name', async () => {
    const root = signRecord({ kind: 'root', root_id: 'forged-root', submitted_at: new Date().toISOString(), objective: { objective: 'spend the budget' } }, fleetKey);
    const job = await submitJob(fleetRedis, prefix, 'monitor', 'forged-root', root);
    expect(await job.isFailed()).toBe(true);
    expect((await client.deadLetters().get('monitor-forged-root'))?.reason).toMatch(/^signature_invalid: signed by fleet .* only client may sign this/);
  });

  it('cannot answer for the Dispatcher: the Architect refuses the outcome, and the run says why', async () => {
    // The forger works the Dispatcher's queue as the Fleet's user and answers success, signed with the Fleet's key.
    const forger = new Worker(
      'dispatcher',
      (job) => Promise.resolve(signRecord(buildOutcome('ROUTING_DISPATCHER', job.id!, { status: 'success', summary: 'all done, trust me', confidence: 0.99 }, 1, Date.now()), fleetKey)),
      { connection: redisClient(acl.urlFor('fleet')), prefix },
    );
    try {
      const rootId = await client.enqueue(simPlan('all_success', [{}]));
      const outcome = await client.waitForResult(rootId, { timeoutMs: 20_000 });
      expect(outcome.payload.status).not.toBe('success');
      expect(JSON.stringify(outcome.payload)).toMatch(/signed by fleet \(key \\"fleet-[0-9a-f]{12}\\"\), but only dispatcher may sign this/);
    } finally {
      await forger.close();
    }
  });

  it("cannot cancel or time out another tier's work, nor rewrite its step state", async () => {
    tiers.push(await startTiers(tierEnv(), ['dispatcher']));
    const rootId = await client.enqueue(simPlan('all_success', [{ delay_ms: 1_500 }]));
    let dispatcherJob: string | undefined;
    await waitFor(
      async () => {
        const tree = await client.tree(rootId);
        dispatcherJob = tree ? treeNodes(tree, 'ROUTING_DISPATCHER')[0]?.id : undefined;
        return tree !== null && treeNodes(tree, 'SPECIALIZED_FLEET').some((node) => node.status === 'running');
      },
      { description: 'the leaf running' },
    );
    const keys = controlKeys(prefix);
    const mark = (target: string) =>
      JSON.stringify(
        signRecord(
          {
            version: '1.0.0',
            id: `${target}.cancel`,
            timestamp: new Date().toISOString(),
            source_tier: 'PROGRESS_MONITOR',
            target_tier: 'ROUTING_DISPATCHER',
            correlation_id: target,
            payload: { target_message_id: target, reason: 'forged', cascade: true },
          },
          fleetKey,
        ),
      );
    // Another party's key space Redis refuses; its own it may write, but no other tier reads a Fleet mark for its work.
    for (const key of [keys.cancel('client', dispatcherJob!), keys.cancel('dispatcher', dispatcherJob!), keys.timeout('architect', dispatcherJob!), keys.step('dispatcher', dispatcherJob!)]) {
      await expect(fleetRedis.set(key, mark(dispatcherJob!)), key).rejects.toThrow(/^NOPERM/);
    }
    await fleetRedis.set(keys.cancel('fleet', dispatcherJob!), mark(dispatcherJob!));
    await fleetRedis.set(keys.timeout('fleet', dispatcherJob!), JSON.stringify(signRecord({ kind: 'timeout', message_id: dispatcherJob, at: Date.now() }, fleetKey)));
    await fleetRedis.spublish(keys.channel, JSON.stringify({ kind: 'cancel', ids: [dispatcherJob, rootId], reason: 'forged', status: 'cancelled' }));
    const outcome = await client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload.status).toBe('success');
  });
});
