import { describe, expect, it } from 'vitest';
import { roomNoticeSchema, RoomWaits } from './room-waits.js';

describe('RoomWaits', () => {
  it('ends a wait early when a notice names it, and forgets it', async () => {
    const waits = new RoomWaits();
    const waiting = waits.wait('a', 60_000, new AbortController().signal);
    waits.wake(['someone-else']);
    expect(waits.size).toBe(1);
    waits.wake(['a']);
    await waiting;
    expect(waits.size).toBe(0);
  });

  it('ends a wait when its time is up, or its signal fires, named or not', async () => {
    const waits = new RoomWaits();
    await waits.wait('a', 5, new AbortController().signal);
    const controller = new AbortController();
    const aborted = waits.wait('b', 60_000, controller.signal);
    controller.abort();
    await aborted;
    await waits.wait('c', 60_000, controller.signal);
    expect(waits.size).toBe(0);
  });

  it('lets a second wait of the same id end the first: one call, one place in turn', async () => {
    const waits = new RoomWaits();
    const first = waits.wait('a', 60_000, new AbortController().signal);
    const second = waits.wait('a', 60_000, new AbortController().signal);
    await first;
    expect(waits.size).toBe(1);
    waits.wake(['a']);
    await second;
    expect(waits.size).toBe(0);
  });

  it('reads only well-formed notices', () => {
    expect(roomNoticeSchema.safeParse({ kind: 'room', ids: ['a'] }).success).toBe(true);
    expect(roomNoticeSchema.safeParse({ kind: 'room', ids: [] }).success).toBe(false);
    expect(roomNoticeSchema.safeParse({ kind: 'room', ids: Array.from({ length: 65 }, (_, i) => `w${i}`) }).success).toBe(false);
    expect(roomNoticeSchema.safeParse({ kind: 'room', ids: ['a'], extra: 1 }).success).toBe(false);
  });
});
