import { describe, expect, it } from 'vitest';
import { isBeat, isUnresponsive, livenessCheckMs } from './liveness.js';

describe('the liveness of the workers tierflow up runs', () => {
  it('takes a worker silent past the limit for unresponsive, and one that beat within it for alive', () => {
    expect(isUnresponsive(1_000, 61_000, 60_000)).toBe(false);
    expect(isUnresponsive(1_000, 61_001, 60_000)).toBe(true);
  });

  it('reads only a well-formed beat as a beat', () => {
    expect(isBeat({ kind: 'beat' })).toBe(true);
    for (const other of [null, 'beat', { kind: 'beat', extra: 1 }, { kind: 'other' }, []]) expect(isBeat(other)).toBe(false);
  });

  it('looks every second, or more often under a short limit', () => {
    expect([60_000, 3_000, 200].map(livenessCheckMs)).toEqual([1_000, 750, 100]);
  });
});
