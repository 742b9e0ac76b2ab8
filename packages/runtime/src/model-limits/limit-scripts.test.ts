import { redisClient, uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { readAdmission, redisModelLimiter, roomIds } from './limit-scripts.js';
import { modelLimitKeys, resolveModelLimit } from './model-limit.js';
import { RoomWaits } from './room-waits.js';
import { RunningHandlers } from '../cancellation/control-listener.js';

/** Polls `check` until it holds or `ms` pass: no sleep stands in for the window's end. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A caller of its own run, at the default priority. */
const W = { run: 'run-1', priority: 2 };

describe('the model limit scripts', () => {
  const db = usePrivateRedis();
  const model = 'gpt-test';

  function limiter() {
    const prefix = uniquePrefix('limits');
    return { prefix, limiter: redisModelLimiter(db.redis, prefix), keys: modelLimitKeys(prefix, model) };
  }

  it('grants rpm requests in a window and no more, however many ask at once, and tells how long until the oldest leaves', async () => {
    const { limiter: limits } = limiter();
    const limit = resolveModelLimit({ rpm: 3, windowMs: 1_000 });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => limits.reserve(model, limit, `r${i}`, 10, 60_000, W)));
    expect(answers.filter((answer) => answer.granted)).toHaveLength(3);
    const refused = answers.find((answer) => !answer.granted)!;
    expect(refused).toMatchObject({ granted: false, reason: 'rpm' });
    expect(!refused.granted && refused.waitMs).toBeGreaterThan(0);
    expect(!refused.granted && refused.waitMs).toBeLessThanOrEqual(1_001);
    // The same id again is the same grant, not another request.
    const granted = answers.findIndex((answer) => answer.granted);
    expect(await limits.reserve(model, limit, `r${granted}`, 10, 60_000, W)).toEqual({ granted: true });
    // The refused give their places up (past their deadlines, say); once the window has moved on, there is room again.
    await Promise.all(answers.flatMap((answer, i) => (answer.granted ? [] : [limits.settle(model, limit, `r${i}`, null, true)])));
    await eventually(async () => (await limits.reserve(model, limit, 'later', 10, 60_000, W)).granted, 3_000);
  });

  it('holds tpm to the tokens reserved, and a settle gives back what a request did not use', async () => {
    const { limiter: limits, keys } = limiter();
    const limit = resolveModelLimit({ tpm: 1_000, windowMs: 60_000 });
    expect(await limits.reserve(model, limit, 'a', 600, 60_000, W)).toEqual({ granted: true });
    const refused = await limits.reserve(model, limit, 'b', 600, 60_000, W);
    expect(refused).toMatchObject({ granted: false, reason: 'tpm' });
    // About the window's length: the only request that could make room was just made.
    expect(!refused.granted && refused.waitMs).toBeGreaterThan(50_000);
    await limits.settle(model, limit, 'a', 100, false);
    expect(await db.redis.hget(keys.tokens, '#total')).toBe('100');
    expect(await limits.reserve(model, limit, 'b', 600, 60_000, W)).toEqual({ granted: true });
    // A request that used more than it reserved is counted at what it used.
    await limits.settle(model, limit, 'b', 850, false);
    expect(await db.redis.hget(keys.tokens, '#total')).toBe('950');
    // A request bigger than the whole limit goes alone, in an empty window.
    expect(await limits.reserve(model, limit, 'c', 5_000, 60_000, W)).toMatchObject({ granted: false, reason: 'tpm' });
  });

  it('lets tokens leave with their request once the window passes', async () => {
    const { limiter: limits, keys } = limiter();
    const limit = resolveModelLimit({ tpm: 100, windowMs: 300 });
    expect(await limits.reserve(model, limit, 'a', 80, 60_000, W)).toEqual({ granted: true });
    expect(await limits.reserve(model, limit, 'b', 80, 60_000, W)).toMatchObject({ granted: false, reason: 'tpm' });
    await eventually(async () => (await limits.reserve(model, limit, 'b', 80, 60_000, W)).granted, 3_000);
    expect(await db.redis.hget(keys.tokens, '#total')).toBe('80');
  });

  it('holds concurrent requests to their slots, releases a slot on settle, and a slot lapses with its lease', async () => {
    const { limiter: limits } = limiter();
    const limit = resolveModelLimit({ concurrent: 2 });
    const answers = await Promise.all(['a', 'b', 'c'].map((id) => limits.reserve(model, limit, id, 10, 60_000, W)));
    expect(answers.filter((answer) => answer.granted)).toHaveLength(2);
    expect(answers.find((answer) => !answer.granted)).toMatchObject({ reason: 'concurrent' });
    const holder = ['a', 'b', 'c'][answers.findIndex((answer) => answer.granted)]!;
    const waiting = ['a', 'b', 'c'][answers.findIndex((answer) => !answer.granted)]!;
    await limits.settle(model, limit, holder, 10, false);
    // The slot freed is the waiting caller's turn, not a newcomer's.
    expect(await limits.reserve(model, limit, 'd', 10, 200, W)).toMatchObject({ granted: false, reason: 'queued' });
    expect(await limits.reserve(model, limit, waiting, 10, 60_000, W)).toEqual({ granted: true });
    await limits.settle(model, limit, waiting, 10, false);
    expect(await limits.reserve(model, limit, 'd', 10, 200, W)).toEqual({ granted: true });
    expect(await limits.reserve(model, limit, 'e', 10, 60_000, W)).toMatchObject({ granted: false, reason: 'concurrent' });
    // d's lease of 200 ms lapses: a process that died holding it does not hold it for good.
    await eventually(async () => (await limits.reserve(model, limit, 'e', 10, 60_000, W)).granted, 3_000);
  });

  it('takes a request that never left out of the window', async () => {
    const { limiter: limits, keys } = limiter();
    const limit = resolveModelLimit({ rpm: 1, tpm: 1_000 });
    expect(await limits.reserve(model, limit, 'a', 300, 60_000, W)).toEqual({ granted: true });
    await limits.settle(model, limit, 'a', 0, true);
    expect(await db.redis.zcard(keys.window)).toBe(0);
    expect(await db.redis.hget(keys.tokens, '#total')).toBe('0');
    expect(await limits.reserve(model, limit, 'b', 300, 60_000, W)).toEqual({ granted: true });
  });

  it('pauses a model for everyone, even one with no limits, and a shorter pause does not cut a longer one', async () => {
    const { limiter: limits } = limiter();
    const none = resolveModelLimit(undefined);
    await limits.pause(model, 5_000);
    await limits.pause(model, 100);
    const answer = await limits.reserve(model, none, 'a', 10, 60_000, W);
    expect(answer).toMatchObject({ granted: false, reason: 'paused' });
    expect(!answer.granted && answer.waitMs).toBeGreaterThan(4_000);
    // Another model is not paused.
    expect(await limits.reserve('other', none, 'a', 10, 60_000, W)).toEqual({ granted: true });
  });

  it('serves waiting callers in turn across runs: a run with many calls waiting does not hold back one with few', async () => {
    const { limiter: limits } = limiter();
    const limit = resolveModelLimit({ concurrent: 1 });
    const big = { run: 'big', priority: 2 };
    const small = { run: 'small', priority: 2 };
    expect(await limits.reserve(model, limit, 'first', 10, 60_000, big)).toEqual({ granted: true });
    const waiting: [string, typeof big][] = [...['b1', 'b2', 'b3', 'b4'].map((id) => [id, big] as [string, typeof big]), ['s1', small], ['s2', small]];
    for (const [id, waiter] of waiting) expect(await limits.reserve(model, limit, id, 10, 60_000, waiter)).toMatchObject({ granted: false });
    await limits.settle(model, limit, 'first', 10, false);
    // Each round every waiting caller asks again, in the order they came; the one let through ends its call.
    const order: string[] = [];
    while (order.length < waiting.length) {
      for (const [id, waiter] of waiting.filter(([id]) => !order.includes(id))) {
        if ((await limits.reserve(model, limit, id, 10, 60_000, waiter)).granted) {
          order.push(id);
          await limits.settle(model, limit, id, 10, false);
          break;
        }
      }
    }
    expect(order).toEqual(['b1', 's1', 'b2', 's2', 'b3', 'b4']);
  });

  it('lets a more urgent delegation go first, and a waiter that stops asking loses its place', async () => {
    const { limiter: limits } = limiter();
    const limit = resolveModelLimit({ concurrent: 1 });
    expect(await limits.reserve(model, limit, 'holder', 10, 60_000, W)).toEqual({ granted: true });
    expect(await limits.reserve(model, limit, 'routine', 10, 60_000, { run: 'a', priority: 3 })).toMatchObject({ granted: false });
    expect(await limits.reserve(model, limit, 'urgent', 10, 60_000, { run: 'b', priority: 0 })).toMatchObject({ granted: false });
    await limits.settle(model, limit, 'holder', 10, false);
    expect(await limits.reserve(model, limit, 'routine', 10, 60_000, { run: 'a', priority: 3 })).toMatchObject({ granted: false, reason: 'queued' });
    expect(await limits.reserve(model, limit, 'urgent', 10, 60_000, { run: 'b', priority: 0 })).toEqual({ granted: true });
    await limits.settle(model, limit, 'urgent', 10, false);
    // `routine` never asks again: once its wait and the grace have passed, `late` goes ahead of it.
    const late = { run: 'c', priority: 3 };
    expect(await limits.reserve(model, limit, 'late', 10, 60_000, late)).toMatchObject({ granted: false, reason: 'queued' });
    await eventually(async () => (await limits.reserve(model, limit, 'late', 10, 60_000, late)).granted, 3_000);
  });

  it('names, on settle, the waiters first in turn that the freed slot lets through', async () => {
    const { prefix, limiter: limits } = limiter();
    const limit = resolveModelLimit({ concurrent: 2 });
    expect(await limits.reserve(model, limit, 'a', 10, 60_000, W)).toEqual({ granted: true });
    expect(await limits.reserve(model, limit, 'b', 10, 60_000, W)).toEqual({ granted: true });
    expect(await limits.reserve(model, limit, 'c', 10, 60_000, { run: 'run-2', priority: 2 })).toMatchObject({ granted: false, reason: 'concurrent' });
    expect(await limits.reserve(model, limit, 'd', 10, 60_000, { run: 'run-3', priority: 2 })).toMatchObject({ granted: false, reason: 'concurrent' });
    const published: (readonly string[])[] = [];
    const telling = redisModelLimiter(db.redis, prefix, { waits: new RoomWaits(), publish: (ids) => Promise.resolve(published.push(ids)) });
    await telling.settle(model, limit, 'a', 5, false);
    // One slot free: the first waiter in turn, and only it.
    expect(published).toEqual([['c']]);
    // A settle that frees nothing (the same request again) names no one.
    await telling.settle(model, limit, 'a', 5, false);
    expect(published).toHaveLength(1);
  });

  it('wakes a waiter in another process when a settle frees its slot, over the control channel', async () => {
    const prefix = uniquePrefix('limits');
    const channel = `${prefix}:control`;
    const limit = resolveModelLimit({ concurrent: 1 });
    // Two processes' worth of connections: each its own limiter, subscriber and waiters.
    const [subscriber, publisher] = [redisClient(db.server.url), redisClient(db.server.url)];
    const waits = new RoomWaits();
    const listening = new RunningHandlers(subscriber, channel, { marks: () => Promise.resolve(new Map()), onRoom: (ids) => waits.wake(ids) });
    try {
      await listening.listen();
      const holder = redisModelLimiter(publisher, prefix, { waits: new RoomWaits(), publish: (ids) => publisher.spublish(channel, JSON.stringify({ kind: 'room', ids })) });
      const waiter = redisModelLimiter(db.redis, prefix, { waits, publish: () => Promise.resolve() });
      expect(await holder.reserve(model, limit, 'holding', 10, 60_000, W)).toEqual({ granted: true });
      expect(await waiter.reserve(model, limit, 'waiting', 10, 60_000, { run: 'run-2', priority: 2 })).toMatchObject({ granted: false, reason: 'concurrent' });
      // Told to wait a minute: only the notice can end the wait within the test's time.
      const woken = waiter.waitForRoom!('waiting', 60_000, new AbortController().signal);
      expect(waits.size).toBe(1);
      await holder.settle(model, limit, 'holding', 5, false);
      await woken;
      expect(waits.size).toBe(0);
      expect(await waiter.reserve(model, limit, 'waiting', 10, 60_000, { run: 'run-2', priority: 2 })).toEqual({ granted: true });
    } finally {
      listening.close();
      publisher.disconnect();
    }
  }, 20_000);

  it('reads a reply it does not know as a short wait, never a grant', () => {
    expect(readAdmission(null)).toMatchObject({ granted: false, reason: 'concurrent' });
    expect(readAdmission([0, 'x', 'weird'])).toMatchObject({ granted: false, reason: 'concurrent' });
    expect(roomIds([3, 'a', 7, '', 'b'])).toEqual(['a', 'b']);
    expect(roomIds('nonsense')).toEqual([]);
    expect(readAdmission([1, 0, ''])).toEqual({ granted: true });
  });
});
