import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlKeys, generateKeySet } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv, TierflowClient, type ObjectiveFile } from '@tierflow/runtime';
import { redisClient, uniquePrefix, waitFor } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simPlan } from '../support/runs.js';
import { startAclRedis, type AclRedis, startTiers, type RunningTiers, type AclUser } from './tier-processes.js';

// What one tier's Redis user can do to runs it does not own, with ACLs and signing both on: the
// four tiers each log in as their own user and sign with their own key, as a hardened deployment
// runs them. The attacker holds the Fleet's credentials (a Fleet host runs other people's code).
let dir: string;
let acl: AclRedis;
let prefix: string;
let tiers: RunningTiers;
let client: TierflowClient;
const connections: Redis[] = [];

function as(user: AclUser): Redis {
  const redis = redisClient(acl.urlFor(user));
  redis.on('error', () => undefined);
  connections.push(redis);
  return redis;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-hostile-tier-'));
  prefix = uniquePrefix('hostile');
  const keysDir = join(dir, 'keys');
  generateKeySet(keysDir);
  acl = await startAclRedis(dir, prefix);
  tiers = await startTiers({ REDIS_URL: acl.server.url, TIERFLOW_PREFIX: prefix, TIERFLOW_KEYS_DIR: keysDir, ...acl.tierUrls });
  client = new TierflowClient(runtimeOptionsFromEnv({ REDIS_URL: acl.urlFor('client'), TIERFLOW_PREFIX: prefix, TIERFLOW_KEYS_DIR: keysDir }));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await tiers?.processes.stop();
  for (const connection of connections) connection.disconnect();
  await acl?.server.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A run that is still going `ms` from now, then ends as `sim` says. */
const slowRun = (ms: number, sim: Record<string, unknown> = {}, extra: Partial<ObjectiveFile> = {}): ObjectiveFile => ({
  ...simPlan('all_success', [{ delay_ms: ms, ...sim }]),
  timeout_ms: 60_000,
  ...extra,
});

describe("the Fleet's Redis user against a waiting client", () => {
  it("cannot pass another run's genuine, Monitor-signed success off as this run's outcome through the event stream", async () => {
    const other = await client.enqueue(simPlan('all_success', [{}]));
    expect((await client.waitForResult(other, { timeoutMs: 20_000 })).payload.status).toBe('success');
    const fleet = as('fleet');
    const genuine = await fleet.hget(`${prefix}:monitor:${other}`, 'returnvalue');
    expect(genuine).toContain('"status":"success"');

    const rootId = await client.enqueue(slowRun(1_500, { permanent_error: true }));
    const waiting = client.waitForResult(rootId, { timeoutMs: 20_000 });
    await waitFor(async () => (await fleet.hget(`${prefix}:monitor:${rootId}`, 'processedOn')) !== null, { description: 'the run under way' });
    await fleet.xadd(`${prefix}:monitor:events`, '*', 'event', 'completed', 'jobId', rootId, 'returnvalue', genuine!, 'prev', 'active');
    const outcome = await waiting;
    expect(outcome.correlation_id?.startsWith(rootId)).toBe(true);
    expect(outcome.payload.status).toBe('failed');
  });

  it("cannot pass it off through the run's own job record either: the wait never takes an outcome that does not answer its root", async () => {
    const other = await client.enqueue(simPlan('all_success', [{}]));
    expect((await client.waitForResult(other, { timeoutMs: 20_000 })).payload.status).toBe('success');
    const fleet = as('fleet');
    const genuine = (await fleet.hget(`${prefix}:monitor:${other}`, 'returnvalue'))!;

    // Long enough for a reconciliation (every 2 s) to read the forged record before the run ends.
    const rootId = await client.enqueue(slowRun(5_000, { permanent_error: true }));
    await waitFor(async () => (await fleet.hget(`${prefix}:monitor:${rootId}`, 'processedOn')) !== null, { description: 'the run under way' });
    await fleet.hset(`${prefix}:monitor:${rootId}`, 'returnvalue', genuine, 'finishedOn', Date.now());
    // The wait ends without an outcome, saying why; it never takes the other run's.
    await expect(client.waitForResult(rootId, { timeoutMs: 20_000 })).rejects.toMatchObject({
      code: 'root_outcome_invalid',
      message: expect.stringContaining(`not the outcome of run ${rootId}`) as string,
    });
    expect(await client.result(rootId)).toBeNull();
    // The run itself goes on, and its own outcome is there once it ends.
    await waitFor(async () => (await client.result(rootId))?.payload.status === 'failed', { timeoutMs: 20_000, description: 'the run’s own outcome' });
  });
});

describe("the Fleet's Redis user against another run's budget", () => {
  it('cannot stop a run without a budget by queuing a budget stop for it: the Monitor checks the run’s count first', async () => {
    const rootId = await client.enqueue(slowRun(2_000));
    const fleet = as('fleet');
    await waitFor(async () => (await fleet.hget(`${prefix}:monitor:${rootId}`, 'processedOn')) !== null, { description: 'the run under way' });
    await fleet.zadd(controlKeys(prefix).budgetStops, 0, rootId);
    // The Monitor sweeps the stops every quarter second: the entry is gone well before the run ends.
    await waitFor(async () => (await fleet.zcard(controlKeys(prefix).budgetStops)) === 0, { description: 'the bogus stop taken' });
    const outcome = await client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload).toMatchObject({ status: 'success', error_type: null });
  });

  it('cannot stop a run within its budget either, even by writing tighter limits and the over-budget mark into its hash', async () => {
    const rootId = await client.enqueue(slowRun(2_000, {}, { budget: { max_llm_calls: 3, max_cost_usd: 1 } }));
    const fleet = as('fleet');
    await waitFor(async () => (await fleet.hget(`${prefix}:budget:${rootId}`, 'max_llm_calls')) !== null, { description: 'the run’s limits written' });
    await fleet.hset(`${prefix}:budget:${rootId}`, 'max_llm_calls', 1, 'llm_calls', 1, 'exceeded', 'max_llm_calls');
    await fleet.zadd(controlKeys(prefix).budgetStops, 0, rootId);
    const outcome = await client.waitForResult(rootId, { timeoutMs: 20_000 });
    expect(outcome.payload).toMatchObject({ status: 'success', error_type: null });
  });
});

describe("the Fleet's Redis user against a Dispatcher job it works for", () => {
  /** Starts a run whose Dispatcher job parks for `ms`, and answers its id once it has. */
  async function parkedDispatcher(ms: number): Promise<{ rootId: string; dispatcherId: string }> {
    const rootId = await client.enqueue(slowRun(ms));
    const dispatcherId = `${rootId}.0-0.0-0`;
    const dispatcher = new Queue('dispatcher', { connection: as('client'), prefix });
    try {
      await waitFor(async () => (await dispatcher.getJobState(dispatcherId)) === 'waiting-children', { description: 'the Dispatcher job parked' });
    } finally {
      await dispatcher.close();
    }
    return { rootId, dispatcherId };
  }

  it.each([
    ['refused at once (dead-lettered)', {}],
    ['refused, asking to fail its parent', { failParentOnFailure: true }],
    ['never taken up (delayed a year)', { delay: 365 * 24 * 3600_000 }],
  ])('a child it plants, %s, neither blocks the parent nor answers it', async (_name, opts) => {
    const { rootId, dispatcherId } = await parkedDispatcher(1_000);
    const fleet = new Queue('fleet', { connection: as('fleet'), prefix });
    try {
      await fleet.add('planted', { not: 'a delegation' }, { jobId: `planted-${rootId}`, parent: { id: dispatcherId, queue: `${prefix}:dispatcher` }, ...opts });
    } finally {
      await fleet.close();
    }
    // Well inside the run's 60 s: the parent goes on once its own child has answered.
    const outcome = await client.waitForResult(rootId, { timeoutMs: 15_000 });
    expect(outcome.payload).toMatchObject({ status: 'success', error_type: null });
    expect(JSON.stringify(outcome.payload)).not.toContain('planted');
  });
});
