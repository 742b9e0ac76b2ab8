import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BeadsStore } from '@tierflow/beads';
import { auditKey, controlKeys, readAuditTrail } from '@tierflow/runtime/admin';
import { resolveRuntimeOptions, TierflowClient, type RunNode } from '@tierflow/runtime';
import { redisClient, uniquePrefix, waitFor } from '@tierflow/testing';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simPlan, treeNodes } from '../support/runs.js';
import { startAclRedis, type AclRedis, startTiers, type RunningTiers, type AclUser } from './tier-processes.js';

// A Redis that knows only the users `tierflow acl print` wrote, and the four tiers each logged in as its own.
let dir: string;
let acl: AclRedis;
let prefix: string;
let tiers: RunningTiers;
let client: TierflowClient;
let admin: Redis;
const connections: Redis[] = [];

function urlFor(user: string, password: string): string {
  return acl.server.url.replace('redis://', `redis://${user}:${password}@`);
}

/** A connection as `user`; it reports errors through the commands it runs, not as events. */
function as(user: string | null, password = acl.passwords[user as AclUser] ?? ''): Redis {
  const redis = redisClient(user ? urlFor(user, password) : acl.server.url);
  redis.on('error', () => undefined);
  connections.push(redis);
  return redis;
}

async function refusal(command: Promise<unknown>): Promise<string> {
  return command.then(
    (value) => `done: ${String(value)}`,
    (error: Error) => error.message,
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tierflow-acl-e2e-'));
  prefix = uniquePrefix('acl');
  acl = await startAclRedis(dir, prefix);
  admin = as('admin');
  // No credentials in REDIS_URL: each tier logs in with its own REDIS_URL_<TIER> or not at all.
  tiers = await startTiers({ REDIS_URL: acl.server.url, TIERFLOW_PREFIX: prefix, ...acl.tierUrls });
  client = new TierflowClient(resolveRuntimeOptions({ redisUrl: acl.urlFor('client'), prefix }));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await tiers?.processes.stop();
  for (const connection of connections) connection.disconnect();
  await acl?.server.stop();
  await rm(dir, { recursive: true, force: true });
});

async function run(objective: ReturnType<typeof simPlan>): Promise<{ id: string; status: string; tree: RunNode }> {
  const id = await client.enqueue(objective);
  const outcome = await client.waitForResult(id, { timeoutMs: 20_000 });
  return { id, status: outcome.payload.status, tree: (await client.tree(id))! };
}

let firstRoot: string;

describe('four tiers, four Redis users', () => {
  it('runs a root objective to success, each tier connected as its own user', async () => {
    const { id, status, tree } = await run(simPlan('all_success', [{ output_bytes: 2048 }, {}]));
    expect(status, tiers.logs.join('\n')).toBe('success');
    expect(treeNodes(tree, 'SPECIALIZED_FLEET')).toHaveLength(2);
    firstRoot = id;
    const users = String(await admin.call('CLIENT', 'LIST'))
      .split('\n')
      .map((line) => /\buser=(\S+)/.exec(line)?.[1])
      .filter((user): user is string => user !== undefined);
    expect(new Set(users)).toEqual(new Set(['admin', 'client', 'monitor', 'architect', 'dispatcher', 'fleet']));
    // Each tier keeps its registry of workers among its own keys, and the client reads them all.
    const listed = await waitFor(async () => ((await client.workers()).length === 4 ? client.workers() : null), { description: 'four workers listed' });
    expect(new Set(listed.map((worker) => worker.tier))).toEqual(new Set(['PROGRESS_MONITOR', 'ABSTRACT_ARCHITECT', 'ROUTING_DISPATCHER', 'SPECIALIZED_FLEET']));
    // The client indexed the root, each tier added what its nodes saw, and the client reads it all back.
    const found = await client.findRuns({ specialist: 'sim', taskType: 'general', status: 'success' });
    expect(found.runs.map((summary) => summary.root_id)).toEqual([id]);
  });

  it('races, timeouts, cancellations, questions and dead letters work within the ACL', async () => {
    const race = await run(simPlan('first_success', [{}, { delay_ms: 10_000 }]));
    expect(race.status).toBe('success');
    expect(
      treeNodes(race.tree, 'SPECIALIZED_FLEET')
        .map((node) => node.status)
        .sort(),
    ).toEqual(['cancelled', 'success']);

    const late = await run(simPlan('all_success', [{ delay_ms: 10_000 }], { timeout_ms: 500 }));
    expect(treeNodes(late.tree, 'SPECIALIZED_FLEET').every((node) => node.status === 'timeout')).toBe(true);

    const long = await client.enqueue(simPlan('all_success', [{ delay_ms: 30_000 }]));
    await waitFor(async () => treeNodes((await client.tree(long)) ?? ({ children: [] } as unknown as RunNode), 'SPECIALIZED_FLEET')[0]?.status === 'running', {
      description: 'the leaf to run',
    });
    expect(await client.cancel(long, { reason: 'acl drill' })).toMatchObject({ outcome: 'cancelled' });
    expect((await client.waitForResult(long, { timeoutMs: 10_000 })).payload.status).toBe('cancelled');

    // A question put to a person, answered by the client.
    const asks = await client.enqueue(simPlan('all_success', [{ ask: 'Which region?' }]));
    await waitFor(async () => (await client.tree(asks))?.status === 'input_required', { description: 'the run to ask' });
    expect(await client.answer(asks, 'eu-west')).toMatchObject({ open: 0, resumed: true });
    expect((await client.waitForResult(asks, { timeoutMs: 10_000 })).payload.status).toBe('success');

    const fleet = new Queue('fleet', { connection: as('client'), prefix });
    await fleet.add('bad', { not: 'a message' }, { jobId: 'acl-bad-1' });
    await fleet.close();
    const letters = client.deadLetters();
    await waitFor(() => letters.get('fleet-acl-bad-1'), { description: 'the dead letter' });
    await letters.close();
  });

  it('had Redis refuse nothing the runtime did (ACL LOG is empty)', async () => {
    expect(await admin.call('ACL', 'LOG')).toEqual([]);
    expect(tiers.logs.filter((line) => /NOPERM|NOAUTH|WRONGPASS/.test(line))).toEqual([]);
  });
});

describe('what Redis itself refuses', () => {
  it('refuses the Fleet a Beads write outside its namespaces, even through a store that claims another tier', async () => {
    const fleet = as('fleet');
    expect(await refusal(fleet.set(`${prefix}:beads:task/${firstRoot}/x`, '1'))).toMatch(/^NOPERM/);
    expect(await refusal(fleet.set(`${prefix}:beads:system/seen-messages/monitor/x`, '1'))).toMatch(/^NOPERM/);
    expect(await refusal(fleet.del(`${prefix}:beads:history/runs/${firstRoot}`))).toMatch(/^NOPERM/);
    const impostor = new BeadsStore(fleet, { tier: 'ABSTRACT_ARCHITECT', prefix });
    await expect(impostor.set(`task/${firstRoot}/current-objective`, 'taken over')).rejects.toThrow(/^NOPERM/);
    // Its own namespaces it writes.
    expect(await fleet.set(`${prefix}:beads:execution/acl-test`, '1')).toBe('OK');
    expect(await fleet.set(`${prefix}:beads:system/seen-messages/fleet/acl-test`, '1')).toBe('OK');
  });

  it("refuses the Fleet another tier's step state, watchdogs, timeout records, marks, races and crash records; its own it writes, the others' it reads", async () => {
    const keys = controlKeys(prefix);
    const fleet = as('fleet');
    for (const key of [
      keys.step('dispatcher', 'x'),
      keys.cancel('dispatcher', 'x'),
      keys.cancel('client', 'x'),
      keys.timeout('dispatcher', 'x'),
      keys.race('dispatcher', 'x'),
      keys.raceWinner('dispatcher', 'x'),
      keys.crashes('dispatcher', 'x'),
    ]) {
      expect(await refusal(fleet.set(key, 'forged')), key).toMatch(/^NOPERM/);
      expect(await refusal(fleet.del(key)), key).toMatch(/^NOPERM/);
    }
    expect(await refusal(fleet.zadd(keys.watchdogs('dispatcher'), 0, 'forged'))).toMatch(/^NOPERM/);
    expect(await refusal(fleet.zrem(keys.watchdogs('dispatcher'), 'x'))).toMatch(/^NOPERM/);
    for (const key of [keys.step('fleet', 'acl-x'), keys.cancel('fleet', 'acl-x'), keys.timeout('fleet', 'acl-x'), keys.crashes('fleet', 'acl-x')]) expect(await fleet.set(key, '1')).toBe('OK');
    expect(await fleet.mget(keys.cancel('dispatcher', 'x'), keys.timeout('dispatcher', 'x'), keys.race('dispatcher', 'x'))).toEqual([null, null, null]);
    expect(await refusal(fleet.get(keys.step('dispatcher', 'x')))).toMatch(/^NOPERM/);
    // Each party writes its own part of the run index, and only the client enters roots.
    expect(await refusal(fleet.hset(keys.runFacts('monitor', 'x'), 'status', 'success'))).toMatch(/^NOPERM/);
    expect(await refusal(fleet.zadd(keys.runIndex, 0, 'forged'))).toMatch(/^NOPERM/);
    expect(await fleet.hset(keys.runFacts('fleet', 'acl-x'), 's:sim', '1')).toBe(1);
    expect(await refusal(as('client').hset(keys.runFacts('monitor', 'x'), 'status', 'success'))).toMatch(/^NOPERM/);
    // The client writes its own marks only.
    expect(await refusal(as('client').set(keys.cancel('monitor', 'x'), 'forged'))).toMatch(/^NOPERM/);
    expect(await as('client').set(keys.cancel('client', 'acl-x'), '1')).toBe('OK');
  });

  it('lets every tier read Beads it does not own', async () => {
    const architectKeys = await admin.keys(`${prefix}:beads:task/${firstRoot}/*`);
    expect(architectKeys.length).toBeGreaterThan(0);
    for (const user of ['monitor', 'dispatcher', 'fleet', 'client'] as const) {
      const reader = new BeadsStore(as(user), { tier: 'SPECIALIZED_FLEET', prefix });
      const values = await reader.getMany(architectKeys.map((key) => key.slice(`${prefix}:`.length)));
      expect(values.every((value) => value !== null)).toBe(true);
      expect(await as(user).get(`${prefix}:beads:system/runs/${firstRoot}`)).not.toBeNull();
    }
  });

  it('refuses the Dispatcher the Fleet’s outputs, and every tier another deployment and the server', async () => {
    expect(await refusal(as('dispatcher').set(`${prefix}:beads:execution/x`, '1'))).toMatch(/^NOPERM/);
    expect(await as('dispatcher').set(`${prefix}:beads:routing/acl-test`, '1')).toBe('OK');
    const fleet = as('fleet');
    expect(await refusal(fleet.set('{another}:fleet:x', '1'))).toMatch(/^NOPERM/);
    expect(await refusal(fleet.spublish('{another}:control', 'x'))).toMatch(/^NOPERM/);
    for (const command of [['FLUSHALL'], ['KEYS', '*'], ['CONFIG', 'GET', 'dir'], ['ACL', 'LIST'], ['FUNCTION', 'FLUSH'], ['SHUTDOWN']]) {
      expect(await refusal(fleet.call(command[0]!, ...command.slice(1)))).toMatch(/^NOPERM/);
    }
    expect(await refusal(as('client').set(`${prefix}:beads:task/x`, '1'))).toMatch(/^NOPERM/);
  });

  it('lets tiers and the client append to a run’s audit trail, never take from it; the admin trims', async () => {
    const key = auditKey(prefix, firstRoot);
    const written = await admin.xlen(key);
    // The run's four tiers, each as its own user, wrote it.
    expect(written).toBeGreaterThanOrEqual(14);
    for (const user of ['monitor', 'architect', 'dispatcher', 'fleet', 'client'] as const) {
      const redis = as(user);
      for (const command of [
        redis.xdel(key, '0-1'),
        redis.xtrim(key, 'MAXLEN', 0),
        redis.del(key),
        redis.unlink(key),
        redis.rename(key, `${key}-x`),
        redis.set(key, 'x'),
        redis.call('XSETID', key, '9999999999999-0'),
      ]) {
        expect(await refusal(command), user).toMatch(/^NOPERM/);
      }
      // The selector lets the append script run on a trail; inside it, each command is checked again.
      expect(await refusal(redis.eval("return redis.call('XDEL', KEYS[1], '0-1')", 1, key)), user).toMatch(/can't access at least one of the keys|NOPERM/);
    }
    const appended = await as('fleet').xadd(key, '*', 'detail', 'appended by the fleet user');
    expect(await as('client').pexpire(key, 3_600_000)).toBe(1);
    expect((await readAuditTrail(as('client'), prefix, firstRoot)).length).toBe(written + 1);
    expect(await admin.xdel(key, appended!)).toBe(1);
    expect(await admin.xlen(key)).toBe(written);
  });

  it('refuses the default user, and a wrong password', async () => {
    expect(await refusal(as(null).get(`${prefix}:beads:task/x`))).toMatch(/^NOAUTH/);
    expect(await refusal(as('default', '').ping())).toMatch(/^WRONGPASS/);
    expect(await refusal(as('default', 'anything').ping())).toMatch(/^WRONGPASS/);
    expect(await refusal(as('fleet', 'wrong').ping())).toMatch(/^WRONGPASS/);
  });
});
