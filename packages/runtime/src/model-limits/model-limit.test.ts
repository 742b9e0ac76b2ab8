import { describe, expect, it } from 'vitest';
import {
  LIMIT_WINDOW_MS,
  modelLimitKeys,
  modelLimitsGlob,
  nextTry,
  reservedTokens,
  resolveModelLimit,
  ROOM_WAIT_MS,
  roomWaitMs,
  slotLeaseMs,
  SLOT_LEASE_MS,
  SLOT_POLL_MS,
  WAITER_GRACE_MS,
} from './model-limit.js';

describe('resolveModelLimit', () => {
  it('leaves a limit not given as none, and the window a minute', () => {
    expect(resolveModelLimit(undefined)).toEqual({ rpm: null, tpm: null, concurrent: null, windowMs: LIMIT_WINDOW_MS, sharedBy: null });
    expect(resolveModelLimit({ rpm: 6, concurrent: 2 })).toEqual({ rpm: 6, tpm: null, concurrent: 2, windowMs: 60_000, sharedBy: null });
    expect(resolveModelLimit({ tpm: 1000, windowMs: 2_000, sharedBy: 'http://vllm/v1' })).toEqual({ rpm: null, tpm: 1000, concurrent: null, windowMs: 2_000, sharedBy: 'http://vllm/v1' });
  });

  it('refuses a limit that is not a whole number above 0, naming it', () => {
    expect(() => resolveModelLimit({ rpm: 0 })).toThrow(/rpm/);
    expect(() => resolveModelLimit({ tpm: 1.5 })).toThrow(/tpm/);
    expect(() => resolveModelLimit({ concurrent: -1 })).toThrow(/concurrent/);
    expect(() => resolveModelLimit({ rpm: 1, windowMs: 0 })).toThrow(/windowMs/);
    expect(() => resolveModelLimit({ rpm: 1, rps: 2 } as never)).toThrow(/rps|unrecognized/i);
  });
});

describe('nextTry', () => {
  it('waits what the limiter says while that is before the deadline, and answers throttled when it is not', () => {
    expect(nextTry({ granted: false, waitMs: 250.2, reason: 'rpm' }, 1_000, null)).toEqual({ kind: 'wait', ms: 251 });
    expect(nextTry({ granted: false, waitMs: 250, reason: 'rpm' }, 1_000, 2_000)).toEqual({ kind: 'wait', ms: 250 });
    expect(nextTry({ granted: false, waitMs: 1_000, reason: 'paused' }, 1_000, 2_000)).toEqual({ kind: 'throttled' });
    expect(nextTry({ granted: false, waitMs: 0, reason: 'concurrent' }, 1_000, 2_000)).toEqual({ kind: 'wait', ms: 1 });
  });
});

describe('slotLeaseMs and reservedTokens', () => {
  it('holds a slot to the deadline and a little, or for the default lease without one', () => {
    expect(slotLeaseMs(1_000, 31_000)).toBe(35_000);
    expect(slotLeaseMs(10_000, 5_000)).toBe(1_000);
    expect(slotLeaseMs(1_000, null)).toBe(SLOT_LEASE_MS);
  });

  it('reserves the prompt estimate and the output limit, in whole tokens', () => {
    expect(reservedTokens({ tokens_in: 10.2, tokens_out: 1024 })).toBe(1035);
    expect(reservedTokens({ tokens_in: Number.NaN, tokens_out: -3 })).toBe(0);
  });
});

describe('modelLimitKeys', () => {
  it('puts a model under the deployment prefix with a hash tag of its own, its braces encoded', () => {
    const keys = modelLimitKeys('tf:{deploy}', 'org/model{x}');
    expect(keys.window).toBe('tf:{deploy:limit:org%2Fmodel%7Bx%7D}:window');
    for (const key of Object.values(keys)) expect(key.match(/\{[^}]*\}/g)).toEqual(['{deploy:limit:org%2Fmodel%7Bx%7D}']);
    expect(modelLimitsGlob('tf:{deploy}')).toBe('tf:{deploy:limit:*}:*');
  });
});

describe('roomWaitMs', () => {
  it.each([
    { case: 'no deadline: the longest room wait', poll: 100, now: 0, deadline: null, ms: ROOM_WAIT_MS },
    { case: 'a far deadline: the same', poll: 100, now: 0, deadline: 60_000, ms: ROOM_WAIT_MS },
    { case: 'a near deadline: asks again a poll before it', poll: 100, now: 0, deadline: 300, ms: 200 },
    { case: 'a deadline within a poll: one poll, then the deadline decides', poll: 100, now: 0, deadline: 150, ms: 100 },
  ])('$case', ({ poll, now, deadline, ms }) => {
    expect(roomWaitMs(poll, now, deadline)).toBe(ms);
  });

  it('keeps a waiter asking again before its place lapses', () => {
    expect(ROOM_WAIT_MS).toBeLessThan(SLOT_POLL_MS + WAITER_GRACE_MS);
  });
});
