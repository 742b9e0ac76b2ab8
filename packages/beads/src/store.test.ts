import { TIER_NAMES, TIER_SLUGS, type TierName } from '@tierflow/protocol';
import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { type BeadsNamespace } from './beads-key.js';
import { BeadsPermissionError } from './permissions.js';
import { BeadsStore } from './store.js';
import { DEFAULT_BEADS_TTL_MS } from './store-options.js';

const db = usePrivateRedis();

/** A store on its own prefix, so tests never see each other's keys. */
function storeFor(tier: TierName, label: string, options: { defaultTtlMs?: number | null } = {}): BeadsStore {
  return new BeadsStore(db.redis, { tier, prefix: uniquePrefix(label), ...options });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const OWN_NAMESPACE: Record<TierName, BeadsNamespace> = {
  PROGRESS_MONITOR: 'system',
  ABSTRACT_ARCHITECT: 'task',
  ROUTING_DISPATCHER: 'routing',
  SPECIALIZED_FLEET: 'execution',
};

describe('BeadsStore', () => {
  it('round-trips JSON values', async () => {
    const beads = storeFor('SPECIALIZED_FLEET', 'round-trip');
    const values: unknown[] = [{ files: ['a.ts'], passed: 5, nested: { ok: true, none: null } }, 'text', 42, true, [1, [2, [3]]]];
    for (const [i, value] of values.entries()) await beads.set(`execution/outputs/${i}`, value);
    for (const [i, value] of values.entries()) expect(await beads.get(`execution/outputs/${i}`)).toEqual(value);
    expect(await beads.get('execution/outputs/missing')).toBeNull();
    expect(await beads.getMany(['execution/outputs/0', 'execution/outputs/missing', 'beads:execution/outputs/1'])).toEqual([values[0], null, 'text']);
    expect(await beads.getMany([])).toEqual([]);
    // Unparsed, as stored: for readers that pass the JSON on.
    expect(await beads.getTexts(['execution/outputs/0', 'execution/outputs/missing', 'beads:execution/outputs/2'])).toEqual([JSON.stringify(values[0]), null, '42']);
    expect(await beads.getTexts([])).toEqual([]);
  });

  it('stores JSON text at <prefix>:beads:<key>', async () => {
    const beads = storeFor('ABSTRACT_ARCHITECT', 'layout');
    await beads.set('task/current-objective', { objective: 'ship' });
    expect(beads.redisKey('beads:task/current-objective')).toBe(`${beads.prefix}:beads:task/current-objective`);
    expect(await db.redis.get(`${beads.prefix}:beads:task/current-objective`)).toBe('{"objective":"ship"}');
    expect(beads.ref('task/current-objective')).toBe('beads:task/current-objective');
  });

  it('uses {tierflow} and a 24 h TTL unless told otherwise', () => {
    const beads = new BeadsStore(db.redis, { tier: 'SPECIALIZED_FLEET' });
    expect(beads.prefix).toBe('{tierflow}');
    expect(beads.defaultTtlMs).toBe(DEFAULT_BEADS_TTL_MS);
    expect(beads.redisKey('execution/x')).toBe('{tierflow}:beads:execution/x');
    expect(() => new BeadsStore(db.redis, { tier: 'SPECIALIZED_FLEET', defaultTtlMs: 0 })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });

  it('applies the default TTL, a TTL of its own, or none', async () => {
    const beads = storeFor('ROUTING_DISPATCHER', 'ttl', { defaultTtlMs: 60_000 });
    await beads.set('routing/default', 1);
    await beads.set('routing/own', 1, { ttlMs: 5_000 });
    await beads.set('routing/forever', 1, { ttlMs: null });
    const pttl = (key: string): Promise<number> => db.redis.pttl(beads.redisKey(key));
    expect(await pttl('routing/default')).toBeGreaterThan(55_000);
    expect(await pttl('routing/default')).toBeLessThanOrEqual(60_000);
    expect(await pttl('routing/own')).toBeGreaterThan(0);
    expect(await pttl('routing/own')).toBeLessThanOrEqual(5_000);
    expect(await pttl('routing/forever')).toBe(-1);

    // Overwriting with no expiry makes the key persistent.
    await beads.set('routing/own', 2, { ttlMs: null });
    expect(await pttl('routing/own')).toBe(-1);
    await expect(beads.set('routing/bad', 1, { ttlMs: 0 })).rejects.toMatchObject({ code: 'invalid_beads_ttl' });
  });

  it('keeps values forever with defaultTtlMs null', async () => {
    const beads = storeFor('ROUTING_DISPATCHER', 'persistent', { defaultTtlMs: null });
    await beads.set('routing/task-graph', { nodes: [] });
    expect(await db.redis.pttl(beads.redisKey('routing/task-graph'))).toBe(-1);
  });

  it('refuses a Fleet write to task/current-objective and writes nothing', async () => {
    const beads = storeFor('SPECIALIZED_FLEET', 'denied');
    const error = await rejection(beads.set('task/current-objective', 'take over'));
    expect(error).toBeInstanceOf(BeadsPermissionError);
    expect(error).toMatchObject({ code: 'beads_write_denied', retryable: false, tier: 'SPECIALIZED_FLEET', key: 'task/current-objective' });
    expect(await db.redis.exists(beads.redisKey('task/current-objective'))).toBe(0);
    await expect(beads.setIfAbsent('beads:task/current-objective', 'x')).rejects.toBeInstanceOf(BeadsPermissionError);
    await expect(beads.delete('task/current-objective')).rejects.toBeInstanceOf(BeadsPermissionError);
    expect(await db.redis.keys(`${beads.prefix}*`)).toEqual([]);
  });

  it.each(TIER_NAMES)('%s writes its own namespace and reads every one', async (tier) => {
    const beads = storeFor(tier, 'own');
    const namespace = OWN_NAMESPACE[tier];
    await beads.set(`${namespace}/mine`, { by: tier });
    for (const reader of TIER_NAMES) expect(await beads.withTier(reader).get(`beads:${namespace}/mine`)).toEqual({ by: tier });
    for (const other of Object.values(OWN_NAMESPACE).filter((ns) => ns !== namespace)) {
      const allowed = tier === 'PROGRESS_MONITOR' && other === 'history';
      if (allowed) await beads.set(`${other}/mine`, 1);
      else await expect(beads.set(`${other}/mine`, 1)).rejects.toBeInstanceOf(BeadsPermissionError);
    }
  });

  it('lets each tier write its own seen-messages, and only its own', async () => {
    const fleet = storeFor('SPECIALIZED_FLEET', 'seen');
    await fleet.set('system/seen-messages/fleet/m1', { status: 'SUCCESS' }, { ttlMs: 3_600_000 });
    expect(await fleet.get('system/seen-messages/fleet/m1')).toEqual({ status: 'SUCCESS' });
    await expect(fleet.set('system/seen-messages/monitor/m1', {})).rejects.toBeInstanceOf(BeadsPermissionError);
    await expect(fleet.set('system/other', {})).rejects.toBeInstanceOf(BeadsPermissionError);
    for (const tier of TIER_NAMES) {
      const key = `beads:system/seen-messages/${TIER_SLUGS[tier]}/m2`;
      expect(await fleet.withTier(tier).setIfAbsent(key, tier)).toBe(true);
    }
  });

  it('setMany refuses the whole batch for one refused key', async () => {
    const beads = storeFor('ABSTRACT_ARCHITECT', 'batch');
    const error = await rejection(
      beads.setMany([
        { key: 'task/constraints', value: ['none'] },
        { key: 'beads:task/progress-summary', value: 'half' },
        { key: 'routing/assignments', value: {} },
      ]),
    );
    expect(error).toBeInstanceOf(BeadsPermissionError);
    expect((error as Error).message).toContain('beads:routing/assignments');
    expect(await beads.getMany(['task/constraints', 'task/progress-summary', 'routing/assignments'])).toEqual([null, null, null]);

    await expect(
      beads.setMany([
        { key: 'task/a', value: 1 },
        { key: 'task/b', value: undefined },
      ]),
    ).rejects.toMatchObject({ code: 'beads_unserializable' });
    expect(await beads.exists('task/a')).toBe(false);
  });

  it('setMany writes every entry with its own TTL', async () => {
    const beads = storeFor('ABSTRACT_ARCHITECT', 'batch-ok', { defaultTtlMs: 60_000 });
    await beads.setMany([
      { key: 'task/constraints', value: ['none'] },
      { key: 'beads:task/progress-summary', value: 'half', ttlMs: null },
    ]);
    await beads.setMany([]);
    expect(await beads.getMany(['task/constraints', 'task/progress-summary'])).toEqual([['none'], 'half']);
    expect(await db.redis.pttl(beads.redisKey('task/constraints'))).toBeGreaterThan(0);
    expect(await db.redis.pttl(beads.redisKey('task/progress-summary'))).toBe(-1);
  });

  it('setIfAbsent writes once', async () => {
    const beads = storeFor('SPECIALIZED_FLEET', 'nx');
    expect(await beads.setIfAbsent('execution/lock', 'first', { ttlMs: 10_000 })).toBe(true);
    expect(await beads.setIfAbsent('execution/lock', 'second')).toBe(false);
    expect(await beads.get('execution/lock')).toBe('first');
    expect(await db.redis.pttl(beads.redisKey('execution/lock'))).toBeLessThanOrEqual(10_000);
    expect(await beads.setIfAbsent('execution/forever', 1, { ttlMs: null })).toBe(true);
    expect(await db.redis.pttl(beads.redisKey('execution/forever'))).toBe(-1);
  });

  it('delete and exists', async () => {
    const beads = storeFor('SPECIALIZED_FLEET', 'delete');
    await beads.set('execution/logs/1', 'log');
    expect(await beads.exists('beads:execution/logs/1')).toBe(true);
    expect(await beads.delete('beads:execution/logs/1')).toBe(true);
    expect(await beads.exists('execution/logs/1')).toBe(false);
    expect(await beads.delete('execution/logs/1')).toBe(false);
  });

  it('names the key of a corrupt value', async () => {
    const beads = storeFor('ABSTRACT_ARCHITECT', 'corrupt');
    await db.redis.set(beads.redisKey('task/broken'), 'not json {');
    await expect(beads.get('task/broken')).rejects.toMatchObject({ code: 'beads_corrupt', retryable: false, message: expect.stringContaining('beads:task/broken') as unknown });
    await expect(beads.getMany(['task/fine', 'task/broken'])).rejects.toMatchObject({ code: 'beads_corrupt' });
  });

  it('checks a value with a schema', async () => {
    const beads = storeFor('ABSTRACT_ARCHITECT', 'schema');
    const objective = {
      parse: (value: unknown): { goal: string } => {
        if (typeof value !== 'object' || value === null || typeof (value as { goal?: unknown }).goal !== 'string') throw new Error('goal must be a string');
        return value as { goal: string };
      },
    };
    await beads.set('task/current-objective', { goal: 'ship' });
    await beads.set('task/constraints', { goal: 1 });
    expect(await beads.get('task/current-objective', objective)).toEqual({ goal: 'ship' });
    expect(await beads.get('task/missing', objective)).toBeNull();
    await expect(beads.get('task/constraints', objective)).rejects.toMatchObject({ code: 'beads_invalid_value' });
  });

  it('lists keys with SCAN under a namespace pattern', async () => {
    const beads = storeFor('SPECIALIZED_FLEET', 'scan');
    const ids = Array.from({ length: 1_200 }, (_, i) => String(i).padStart(4, '0'));
    await beads.setMany(ids.map((id) => ({ key: `execution/outputs/${id}`, value: id })));
    await beads.set('execution/logs/0001', 'log');
    // Another deployment's keys, under another prefix, stay out.
    await storeFor('SPECIALIZED_FLEET', 'scan-other').set('execution/outputs/zzzz', 1);

    expect(await beads.keys('execution/outputs/*')).toEqual(ids.map((id) => `execution/outputs/${id}`));
    expect(await beads.keys('beads:execution/*/0001')).toEqual(['execution/logs/0001', 'execution/outputs/0001']);
    expect(await beads.keys('task/*')).toEqual([]);
    await expect(beads.keys('*')).rejects.toMatchObject({ code: 'invalid_beads_key' });
  });

  it('matches its prefix literally, glob characters and all', async () => {
    const prefix = `${uniquePrefix('glob')}[a]*`;
    const beads = new BeadsStore(db.redis, { tier: 'SPECIALIZED_FLEET', prefix });
    await beads.set('execution/x', 1);
    await db.redis.set(`${prefix.replace('[a]*', 'a-lookalike')}:beads:execution/y`, '1');
    expect(await beads.keys('execution/*')).toEqual(['execution/x']);
  });

  it('withTier shares the connection and changes only the permissions', async () => {
    const fleet = storeFor('SPECIALIZED_FLEET', 'with-tier', { defaultTtlMs: null });
    const architect = fleet.withTier('ABSTRACT_ARCHITECT');
    expect(architect.tier).toBe('ABSTRACT_ARCHITECT');
    expect(architect.prefix).toBe(fleet.prefix);
    expect(architect.defaultTtlMs).toBeNull();
    await architect.set('task/current-objective', 'ship');
    expect(await fleet.get('task/current-objective')).toBe('ship');
    await expect(fleet.set('task/current-objective', 'no')).rejects.toBeInstanceOf(BeadsPermissionError);
  });

  it('refuses malformed keys everywhere', async () => {
    const beads = storeFor('SPECIALIZED_FLEET', 'malformed');
    for (const call of [() => beads.get('execution/../task/x'), () => beads.getMany(['execution/ok', 'nope/x']), () => beads.set('execution/a b', 1), () => beads.exists('execution/')]) {
      await expect(call()).rejects.toMatchObject({ code: 'invalid_beads_key' });
    }
    expect(() => beads.redisKey('nope/x')).toThrow(/unknown namespace/);
  });
});
