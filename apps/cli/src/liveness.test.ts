import { describe, expect, it } from 'vitest';
import { isUnresponsive, livenessCheckMs, livenessLimitMs, START_LIVENESS_MS, workerMessageKind } from './liveness.js';

describe('the liveness of the workers tierflow up runs', () => {
  it('takes a worker silent past the limit for unresponsive, and one that beat within it for alive', () => {
    expect(isUnresponsive(1_000, 61_000, 60_000)).toBe(false);
    expect(isUnresponsive(1_000, 61_001, 60_000)).toBe(true);
  });

  it('reads only a well-formed beat or ready as one', () => {
    expect(workerMessageKind({ kind: 'beat' })).toBe('beat');
    expect(workerMessageKind({ kind: 'ready' })).toBe('ready');
    for (const other of [null, 'beat', { kind: 'beat', extra: 1 }, { kind: 'other' }, []]) expect(workerMessageKind(other)).toBeNull();
  });

  it('holds a worker to its limit once ready, and to the start’s longer one before', () => {
    expect(livenessLimitMs(5_000, true)).toBe(5_000);
    expect(livenessLimitMs(5_000, false)).toBe(START_LIVENESS_MS);
    expect(livenessLimitMs(600_000, false)).toBe(600_000);
  });

  it('looks every second, or more often under a short limit', () => {
    expect([60_000, 3_000, 200].map(livenessCheckMs)).toEqual([1_000, 750, 100]);
  });
});
