import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { DeferredBeadsStore } from './deferred-store.js';
import { BeadsPermissionError } from './permissions.js';
import { BeadsStore, multiBatch } from './store.js';

const db = usePrivateRedis();

/** A deferred store for the Fleet, and a plain one on the same prefix to see what Redis holds. */
function stores(label: string): { deferred: DeferredBeadsStore; stored: BeadsStore } {
  const prefix = uniquePrefix(label);
  return { deferred: new DeferredBeadsStore(db.redis, { tier: 'SPECIALIZED_FLEET', prefix }), stored: new BeadsStore(db.redis, { tier: 'SPECIALIZED_FLEET', prefix }) };
}

describe('DeferredBeadsStore', () => {
  it('holds set and setMany until they are queued on the caller’s MULTI, then writes them in it', async () => {
    const { deferred, stored } = stores('deferred-multi');
    await deferred.set('execution/outputs/a', { n: 1 });
    await deferred.setMany([
      { key: 'execution/logs/a', value: 'log' },
      { key: 'execution/outputs/b', value: 2, ttlMs: 5_000 },
    ]);
    expect(deferred.pendingWrites).toBe(3);
    expect(await stored.getMany(['execution/outputs/a', 'execution/logs/a', 'execution/outputs/b'])).toEqual([null, null, null]);

    const multi = db.redis.multi();
    deferred.writeInto(multiBatch(multi));
    multi.set(`${stored.prefix}:other`, 'x');
    await multi.exec();
    expect(deferred.pendingWrites).toBe(0);
    expect(await stored.getMany(['execution/outputs/a', 'execution/logs/a', 'execution/outputs/b'])).toEqual([{ n: 1 }, 'log', 2]);
    const ttl = await db.redis.pttl(stored.redisKey('execution/outputs/b'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });

  it('reads its own waiting writes, the latest of a key winning, and Redis for the rest', async () => {
    const { deferred, stored } = stores('deferred-reads');
    await stored.set('execution/outputs/old', 'stored');
    await deferred.set('execution/outputs/new', 'first');
    await deferred.set('execution/outputs/new', 'second');
    expect(deferred.pendingWrites).toBe(1);
    expect(await deferred.get('execution/outputs/new')).toBe('second');
    expect(await deferred.get('beads:execution/outputs/old')).toBe('stored');
    expect(await deferred.getMany(['execution/outputs/old', 'execution/outputs/new', 'execution/outputs/none'])).toEqual(['stored', 'second', null]);
    expect(await deferred.getTexts(['execution/outputs/old', 'execution/outputs/new', 'execution/outputs/none'])).toEqual(['"stored"', '"second"', null]);
    expect(await deferred.exists('execution/outputs/new')).toBe(true);
    expect(await deferred.exists('execution/outputs/none')).toBe(false);
  });

  it('refuses a write it may not make at once, and holds none of a batch with one refused key', async () => {
    const { deferred } = stores('deferred-refused');
    await expect(deferred.set('task/objective', 'x')).rejects.toBeInstanceOf(BeadsPermissionError);
    await expect(
      deferred.setMany([
        { key: 'execution/outputs/a', value: 1 },
        { key: 'routing/plan', value: 2 },
      ]),
    ).rejects.toBeInstanceOf(BeadsPermissionError);
    expect(deferred.pendingWrites).toBe(0);
  });

  it('sends what is waiting before a write whose answer depends on Redis, and before keys()', async () => {
    const { deferred, stored } = stores('deferred-flush');
    await deferred.set('execution/finished/a', 'held');
    expect(await deferred.setIfAbsent('execution/finished/a', 'racer')).toBe(false);
    expect(await stored.get('execution/finished/a')).toBe('held');

    await deferred.set('execution/outputs/x', 1);
    expect(await deferred.keys('execution/outputs/*')).toEqual(['execution/outputs/x']);

    await deferred.set('execution/outputs/y', 1);
    expect(await deferred.delete('execution/outputs/y')).toBe(true);
    expect(await stored.get('execution/outputs/y')).toBeNull();
    expect(deferred.pendingWrites).toBe(0);
  });

  it('flush() sends the waiting writes in one MULTI of its own', async () => {
    const { deferred, stored } = stores('deferred-own');
    await deferred.set('execution/outputs/z', 'z');
    await deferred.flush();
    expect(await stored.get('execution/outputs/z')).toBe('z');
    await deferred.flush(); // nothing waiting: no round trip, no error
  });
});
