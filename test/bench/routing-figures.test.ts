import { describe, expect, it } from 'vitest';
import { bestOf, bestShareBetween, cumulativeRegret, missedByReason, pickWindows, regretOf, rootsToMove, type RoutingPick } from './routing-figures.js';

const BEFORE = { a: 0.5, b: 0.9, c: 0.3 };
const AFTER = { a: 0.5, b: 0.2, c: 0.3 };
const phaseOf = (index: number) => (index < 4 ? BEFORE : AFTER);
const picks = (chosen: string): RoutingPick[] => [...chosen].map((name, index) => ({ index, chosen: name, reason: name === 'b' ? 'best_mean' : 'sampled' }));

describe('bench:routing figures', () => {
  it('the oracle knows the best, and a pick’s regret is what it gives up', () => {
    expect(bestOf(BEFORE)).toBe('b');
    expect(regretOf(BEFORE, 'c')).toBeCloseTo(0.6, 9);
    expect(regretOf(BEFORE, 'b')).toBe(0);
    expect(() => regretOf(BEFORE, 'z')).toThrow(RangeError);
  });

  it('windows count picks to the best of each pick’s own phase', () => {
    const run = picks('bbcbaaca');
    expect(pickWindows(run, phaseOf, 8, 4).map((window) => [window.from, window.to, window.bestShare])).toEqual([
      [0, 3, 0.75],
      [4, 7, 0.75],
    ]);
    expect(cumulativeRegret(run, phaseOf)).toBeCloseTo(0.6 + 0.2, 9);
    expect(cumulativeRegret(run, phaseOf, 4)).toBeCloseTo(0.6, 9);
    expect(bestShareBetween(run, phaseOf, 4, 7)).toBe(0.75);
    expect(bestShareBetween(run, phaseOf, 20, 30)).toBeNull();
    expect(missedByReason(run, phaseOf, 0, 7)).toEqual({ sampled: 2 });
  });

  it('the move is counted to the end of the first window after the change in which the new best has half the picks', () => {
    const run = picks('bbbbbbbbbbbabaaaaa');
    expect(rootsToMove(run, 8, 'a', 4)).toBe(6);
    expect(rootsToMove(run, 8, 'c', 4)).toBeNull();
  });
});
