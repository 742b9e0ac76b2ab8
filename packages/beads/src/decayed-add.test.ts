import { addToSums, DECAYED_SUMS_FIELD_CAP, decayedSumsSchema, seededRandom, type DecayedSums } from '@tierflow/core';
import { redisClient, uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { DECAYED_TTL_HALF_LIVES } from './decayed-add.js';
import { DeferredBeadsStore } from './deferred-store.js';
import { BeadsPermissionError } from './permissions.js';
import { BeadsStore, multiBatch } from './store.js';

const db = usePrivateRedis();
const DAY = 24 * 3600_000;
const T0 = 1_700_000_000_000;

function monitor(label: string): BeadsStore {
  return new BeadsStore(db.redis, { tier: 'PROGRESS_MONITOR', prefix: uniquePrefix(label) });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Equal to addToSums's answer, each sum to 12 significant digits (Lua's pow and V8's may differ in the last bit). */
function expectSums(actual: unknown, expected: DecayedSums): void {
  const value = decayedSumsSchema.parse(actual);
  expect(value.updated_at).toBe(expected.updated_at);
  expect(value.half_life_ms).toBe(expected.half_life_ms);
  expect(Object.keys(value.sums).sort()).toEqual(Object.keys(expected.sums).sort());
  for (const [field, sum] of Object.entries(expected.sums)) {
    expect(Math.abs(value.sums[field]! - sum), `${field}: ${value.sums[field]} vs ${sum}`).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(sum)));
  }
}

describe('BeadsStore.addDecayed', () => {
  it('gives what @tierflow/core’s addToSums gives, on random values, clocks and increments', async () => {
    const beads = monitor('decayed-random');
    const random = seededRandom(42);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const fields = ['samples', 'success', 'failed', 'latency_sum', 'conf_0', 'conf_9', 'tokens_in', 'cost_usd'];
    for (let round = 0; round < 60; round++) {
      const key = `history/specialists/t/s${round}`;
      let expected: DecayedSums | null = null;
      if (random() < 0.7) {
        const sums = Object.fromEntries(fields.filter(() => random() < 0.6).map((field) => [field, random() * pick([1, 100, 1e6])]));
        expected = { updated_at: T0 + Math.floor(random() * DAY), half_life_ms: pick([1_000, 3_600_000, DAY, 7 * DAY]), sums };
        await beads.set(key, expected);
      }
      for (let add = 0; add < 3; add++) {
        const increments = Object.fromEntries(fields.filter(() => random() < 0.5).map((field) => [field, pick([1, 0, -0.5, random() * 1_000, 1e-7])]));
        // Now sometimes behind the stored clock: nothing decays then.
        const now = T0 + Math.floor((random() * 3 - 0.5) * DAY);
        const halfLifeMs = pick([60_000, DAY, 2.5 * DAY]);
        await beads.addDecayed(key, increments, { halfLifeMs, now });
        expected = addToSums(expected, increments, now, halfLifeMs);
        expectSums(await beads.get(key), expected);
      }
    }
  });

  it('adds no field beyond the cap, but still adds to the fields it has', async () => {
    const beads = monitor('decayed-cap');
    const full = Object.fromEntries(Array.from({ length: DECAYED_SUMS_FIELD_CAP - 1 }, (_, i) => [`f${i}`, 1]));
    await beads.addDecayed('history/cap', full, { halfLifeMs: DAY, now: T0 });
    await beads.addDecayed('history/cap', { f0: 2, new1: 1, new2: 1 }, { halfLifeMs: DAY, now: T0 });
    const value = decayedSumsSchema.parse(await beads.get('history/cap'));
    expect(Object.keys(value.sums)).toHaveLength(DECAYED_SUMS_FIELD_CAP);
    expect(value.sums).toMatchObject({ f0: 3, new1: 1 });
    expect(value.sums.new2).toBeUndefined();
    expectSums(value, addToSums(addToSums(null, full, T0, DAY), { f0: 2, new1: 1, new2: 1 }, T0, DAY));
  });

  it('loses no add when two clients add at once', async () => {
    const prefix = uniquePrefix('decayed-race');
    const other = redisClient(db.server.url);
    try {
      const stores = [new BeadsStore(db.redis, { tier: 'PROGRESS_MONITOR', prefix }), new BeadsStore(other, { tier: 'PROGRESS_MONITOR', prefix })];
      const adds = 200;
      await Promise.all(
        stores.flatMap((store, s) => Array.from({ length: adds }, (_, i) => store.addDecayed('system/routing-accuracy', { routed: 1, [`by_${s}`]: 1 }, { halfLifeMs: DAY, now: T0 + i }))),
      );
      const value = decayedSumsSchema.parse(await stores[0]!.get('system/routing-accuracy'));
      // Every add counted once; each decayed by the clocks that came after it, so a little under 400.
      const decayedFloor = 2 * adds * 2 ** (-adds / DAY);
      expect(value.sums.routed).toBeGreaterThanOrEqual(decayedFloor);
      expect(value.sums.routed).toBeLessThanOrEqual(2 * adds);
      expect(value.sums.by_0! + value.sums.by_1!).toBeCloseTo(value.sums.routed!, 9);
      expect(value.updated_at).toBe(T0 + adds - 1);
    } finally {
      other.disconnect();
    }
  });

  it('refuses a value that is not decayed sums, changing nothing and failing nothing else', async () => {
    const beads = monitor('decayed-corrupt');
    const raw = (key: string) => db.redis.get(beads.redisKey(key));
    await db.redis.set(beads.redisKey('history/a'), 'not json {');
    await beads.set('history/b', { updated_at: T0, half_life_ms: DAY, sums: { n: 'three' } });
    await beads.set('history/c', { updated_at: T0, sums: {} });
    await beads.set('history/d', [1, 2]);
    for (const key of ['history/a', 'history/b', 'history/c', 'history/d']) {
      const before = await raw(key);
      expect(await rejection(beads.addDecayed(key, { n: 1 }, { halfLifeMs: DAY, now: T0 }))).toMatchObject({ code: 'beads_invalid_value' });
      expect(await raw(key)).toBe(before);
    }
    expect(await db.redis.ping()).toBe('PONG');
  });

  it('checks the tier’s permission and its input before anything is written', async () => {
    const fleet = new BeadsStore(db.redis, { tier: 'SPECIALIZED_FLEET', prefix: uniquePrefix('decayed-denied') });
    expect(await rejection(fleet.addDecayed('history/x', { n: 1 }, { halfLifeMs: DAY, now: T0 }))).toBeInstanceOf(BeadsPermissionError);
    expect(await fleet.exists('history/x')).toBe(false);
    const beads = monitor('decayed-bad-input');
    for (const [increments, options] of [
      [{ n: 1 }, { halfLifeMs: 0, now: T0 }],
      [{ n: 1 }, { halfLifeMs: DAY, now: Number.POSITIVE_INFINITY }],
    ] as const) {
      expect(await rejection(beads.addDecayed('history/x', increments, options))).toMatchObject({ code: 'invalid_argument' });
    }
    expect(await beads.exists('history/x')).toBe(false);
    // A non-finite increment is skipped, as addToSums skips it.
    await beads.addDecayed('history/x', { a: Number.NaN, b: 1 }, { halfLifeMs: DAY, now: T0 });
    expect(await beads.get('history/x')).toEqual(addToSums(null, { a: Number.NaN, b: 1 }, T0, DAY));
  });

  it('expires after twenty half-lives unless told otherwise, renewed by each add', async () => {
    const beads = monitor('decayed-ttl');
    await beads.addDecayed('history/default', { n: 1 }, { halfLifeMs: 1_000, now: T0 });
    const ttl = await db.redis.pttl(beads.redisKey('history/default'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(DECAYED_TTL_HALF_LIVES * 1_000);
    await beads.addDecayed('history/none', { n: 1 }, { halfLifeMs: DAY, now: T0, ttlMs: null });
    expect(await db.redis.pttl(beads.redisKey('history/none'))).toBe(-1);
    await beads.addDecayed('history/none', { n: 1 }, { halfLifeMs: DAY, now: T0, ttlMs: 60_000 });
    expect(await db.redis.pttl(beads.redisKey('history/none'))).toBeGreaterThan(0);
  });
});

describe('DeferredBeadsStore.addDecayed', () => {
  it('waits for the caller’s MULTI, reading its waiting adds as addToSums makes them', async () => {
    const prefix = uniquePrefix('decayed-deferred');
    const stored = new BeadsStore(db.redis, { tier: 'PROGRESS_MONITOR', prefix });
    const deferred = new DeferredBeadsStore(db.redis, { tier: 'PROGRESS_MONITOR', prefix });
    const before = { updated_at: T0, half_life_ms: DAY, sums: { n: 4 } };
    await stored.set('history/k', before);
    await deferred.addDecayed('history/k', { n: 1 }, { halfLifeMs: DAY, now: T0 + DAY });
    await deferred.addDecayed('history/k', { m: 2 }, { halfLifeMs: DAY, now: T0 + DAY });
    await deferred.addDecayed('history/new', { n: 1 }, { halfLifeMs: DAY, now: T0 });
    expect(deferred.pendingWrites).toBe(3);
    expect(await stored.get('history/k')).toEqual(before);
    const expected = addToSums(addToSums(before, { n: 1 }, T0 + DAY, DAY), { m: 2 }, T0 + DAY, DAY);
    expect(await deferred.get('history/k')).toEqual(expected);
    expect(await deferred.getMany(['history/new', 'history/k', 'history/none'])).toEqual([addToSums(null, { n: 1 }, T0, DAY), expected, null]);

    const multi = db.redis.multi();
    deferred.writeInto(multiBatch(multi));
    await multi.exec();
    expect(deferred.pendingWrites).toBe(0);
    expectSums(await stored.get('history/k'), expected);
    expectSums(await stored.get('history/new'), addToSums(null, { n: 1 }, T0, DAY));
  });

  it('adds to a value set in the same pass, and a later set replaces the waiting adds', async () => {
    const prefix = uniquePrefix('decayed-deferred-set');
    const deferred = new DeferredBeadsStore(db.redis, { tier: 'PROGRESS_MONITOR', prefix });
    const stored = new BeadsStore(db.redis, { tier: 'PROGRESS_MONITOR', prefix });
    const start = { updated_at: T0, half_life_ms: DAY, sums: { n: 1 } };
    await deferred.set('history/a', start);
    await deferred.addDecayed('history/a', { n: 1 }, { halfLifeMs: DAY, now: T0 });
    await deferred.addDecayed('history/b', { n: 1 }, { halfLifeMs: DAY, now: T0 });
    await deferred.set('history/b', 'plain');
    expect(await deferred.getMany(['history/a', 'history/b'])).toEqual([addToSums(start, { n: 1 }, T0, DAY), 'plain']);
    await deferred.flush();
    expect(await stored.getMany(['history/a', 'history/b'])).toEqual([{ updated_at: T0, half_life_ms: DAY, sums: { n: 2 } }, 'plain']);
  });

  it('sends an add to a corrupt value with the rest of the transaction, which it does not fail', async () => {
    const prefix = uniquePrefix('decayed-deferred-corrupt');
    const deferred = new DeferredBeadsStore(db.redis, { tier: 'PROGRESS_MONITOR', prefix });
    await db.redis.set(`${prefix}:beads:history/bad`, '{"updated_at":"then"}');
    await deferred.addDecayed('history/bad', { n: 1 }, { halfLifeMs: DAY, now: T0 });
    await deferred.set('system/ok', 1);
    expect(await deferred.get('history/bad')).toEqual({ updated_at: 'then' });
    await deferred.flush();
    expect(await db.redis.get(`${prefix}:beads:history/bad`)).toBe('{"updated_at":"then"}');
    expect(await db.redis.get(`${prefix}:beads:system/ok`)).toBe('1');
  });

  it('refuses an add outside the tier’s namespaces at once, holding nothing', async () => {
    const deferred = new DeferredBeadsStore(db.redis, { tier: 'ROUTING_DISPATCHER', prefix: uniquePrefix('decayed-deferred-denied') });
    expect(await rejection(deferred.addDecayed('history/x', { n: 1 }, { halfLifeMs: DAY, now: T0 }))).toBeInstanceOf(BeadsPermissionError);
    expect(deferred.pendingWrites).toBe(0);
  });
});
