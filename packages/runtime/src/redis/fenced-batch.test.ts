import { BeadsStore, DeferredBeadsStore } from '@tierflow/beads';
import { addToSums } from '@tierflow/core';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { FencedBatch, LockLostError } from './fenced-batch.js';

describe('FencedBatch, on a real Redis', () => {
  const db = usePrivateRedis();
  const redis = () => db.redis;

  it('writes everything, in order, while the lock is the pass token, and answers the replies', async () => {
    await redis().set('{t}:job:lock', 'token-1');
    await redis().set('{t}:old', 'x');
    const batch = new FencedBatch().set('{t}:a', '1', 'PX', 60_000).del('{t}:old').xadd('{t}:stream', '*', 'f', 'v').zadd('{t}:set', 5, 'm').get('{t}:a').get('{t}:none');
    const replies = await batch.commit(redis(), '{t}:job:lock', 'token-1', 'job');
    expect(replies.slice(0, 2)).toEqual(['OK', 1]);
    expect(replies.slice(3)).toEqual([1, '1', null]);
    expect(await redis().pttl('{t}:a')).toBeGreaterThan(59_000);
    expect(await redis().exists('{t}:old')).toBe(0);
    expect(await redis().zscore('{t}:set', 'm')).toBe('5');
  });

  it('writes nothing, and says the lock was lost, once the lock is another worker token or gone', async () => {
    await redis().set('{t}:job2:lock', 'someone-else');
    await expect(new FencedBatch().set('{t}:b', '1').commit(redis(), '{t}:job2:lock', 'token-1', 'job2')).rejects.toBeInstanceOf(LockLostError);
    await expect(new FencedBatch().set('{t}:b', '1').commit(redis(), '{t}:job3:lock', 'token-1', 'job3')).rejects.toMatchObject({ code: 'lock_lost' });
    expect(await redis().exists('{t}:b')).toBe(0);
  });

  it('writes a key named twice, and a return value, as given', async () => {
    await redis().set('{t}:job5:lock', 't');
    const answer = { status: 'success', text: 'ü 1' };
    const batch = new FencedBatch().setReturnValue('{t}:answer', answer, 60_000).zadd('{t}:z', 1, 'a').zadd('{t}:z', 2, 'b').del('{t}:z', '{t}:x', '{t}:z');
    expect(batch.returnValue).toEqual({ value: answer, text: JSON.stringify(answer) });
    await batch.commit(redis(), '{t}:job5:lock', 't', 'job5');
    expect(await redis().get('{t}:answer')).toBe(JSON.stringify(answer));
    expect(await redis().pttl('{t}:answer')).toBeGreaterThan(59_000);
    expect(await redis().exists('{t}:z')).toBe(0);
  });

  it('declares each key once and sends it once, by its place among the keys', () => {
    const form = new FencedBatch().set('{t}:a', '1').xadd('{t}:s', '*', 'f', '{t}:a').del('{t}:a', '{t}:b').setReturnValue('{t}:r', { x: 1 }, 5).scriptForm(3, true);
    expect(form.keys).toEqual(['{t}:a', '{t}:b', '{t}:r']);
    expect(form.words).toEqual(['3', 'k', 'SET', '3', '1', '5', '', 'XADD', '{t}:s', '*', 'f', '{t}:a', '3', 'kk', 'DEL', '3', '4', '5', 'kr', 'SET', '5', '', 'PX', '5']);
  });

  it('runs a Beads decayed add with the other writes, and one refused (not decayed sums) fails none of them', async () => {
    await redis().set('{t}:job6:lock', 't');
    const deferred = new DeferredBeadsStore(redis(), { tier: 'PROGRESS_MONITOR', prefix: '{t}' });
    await redis().set(deferred.redisKey('history/bad'), '"not sums"');
    await deferred.addDecayed('history/good', { n: 1, ok: 1 }, { halfLifeMs: 60_000, now: 1_000 });
    await deferred.addDecayed('history/good', { n: 1 }, { halfLifeMs: 60_000, now: 61_000 });
    await deferred.addDecayed('history/bad', { n: 1 }, { halfLifeMs: 60_000, now: 1_000 });
    const batch = new FencedBatch().set('{t}:after', '1');
    deferred.writeInto(batch);
    const replies = await batch.commit(redis(), '{t}:job6:lock', 't', 'job6');
    expect(replies).toEqual(['OK', 1, 1, 0]);
    const stored = new BeadsStore(redis(), { tier: 'PROGRESS_MONITOR', prefix: '{t}' });
    expect(await stored.get('history/good')).toEqual(addToSums(addToSums(null, { n: 1, ok: 1 }, 1_000, 60_000), { n: 1 }, 61_000, 60_000));
    expect(await stored.get('history/bad')).toBe('not sums');
    expect(await redis().get('{t}:after')).toBe('1');
  });

  it('deletes any number of keys (in chunks the script can spread)', async () => {
    await redis().set('{t}:job4:lock', 't');
    const keys = Array.from({ length: 2_500 }, (_, index) => `{t}:k${index}`);
    await redis().mset(...keys.flatMap((key) => [key, '1']));
    await new FencedBatch().del(...keys).commit(redis(), '{t}:job4:lock', 't', 'job4');
    expect(await redis().exists(...keys)).toBe(0);
  });
});
