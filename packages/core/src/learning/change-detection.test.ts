import { describe, expect, it } from 'vitest';
import { CHANGE_MIN_RECENT_SAMPLES, detectChange, foldSpecialistHistory, recentHalfLifeMs } from './change-detection.js';
import { addToSums, type DecayedSums } from './decayed-sums.js';
import { historyIncrements, specialistStats } from './specialist-stats.js';
import { record } from './test-records.js';

const H = 80_000;
const ok = historyIncrements(record());
const failed = historyIncrements(record({ status: 'failed' }));

/** Both histories of a specialist after `outcomes` (true: success), one a second apart, folded as the Monitor folds them. */
function run(outcomes: readonly boolean[]): { long: DecayedSums | null; recent: DecayedSums | null; changes: number[] } {
  let long: DecayedSums | null = null;
  let recent: DecayedSums | null = null;
  const changes: number[] = [];
  outcomes.forEach((success, i) => {
    const now = i * 1000;
    const fold = foldSpecialistHistory(long, recent, success ? ok : failed, now, H);
    long = addToSums(long, fold.long, now, H);
    recent = addToSums(recent, fold.recent, now, recentHalfLifeMs(H));
    if (fold.change) changes.push(i);
  });
  return { long, recent, changes };
}

const rate = (value: DecayedSums | null, now: number): number | null => specialistStats(value, now).success_rate;

describe('detectChange', () => {
  const stats = (successes: number, failures: number) =>
    specialistStats(
      [...Array<boolean>(successes).fill(true), ...Array<boolean>(failures).fill(false)].reduce<DecayedSums | null>((value, success) => addToSums(value, success ? ok : failed, 0, H), null),
      0,
    );

  it.each([
    { name: 'rates that agree', long: stats(90, 10), recent: stats(9, 1), changed: false },
    { name: 'a recent run of failures of a good specialist', long: stats(90, 10), recent: stats(2, 8), changed: true },
    { name: 'a poor one that got good', long: stats(30, 70), recent: stats(9, 1), changed: true },
    { name: 'too few recent samples to judge', long: stats(90, 10), recent: stats(0, CHANGE_MIN_RECENT_SAMPLES - 1), changed: false },
    { name: 'a specialist that never failed, then failed often', long: stats(100, 0), recent: stats(3, 3), changed: true },
    { name: 'a one-off failure of one that never failed', long: stats(100, 0), recent: stats(9, 1), changed: false },
  ])('$name: changed $changed', ({ long, recent, changed }) => {
    expect(detectChange(long, recent) !== null).toBe(changed);
  });
});

describe('foldSpecialistHistory', () => {
  it('adds the same increments to both histories while they agree', () => {
    const fold = foldSpecialistHistory(null, null, ok, 0, H);
    expect(fold).toEqual({ long: ok, recent: ok, change: null });
  });

  it('a steady specialist is seldom convicted, and its rate stays where it was', () => {
    const steady = Array.from({ length: 400 }, (_, i) => i % 10 !== 3);
    const { long, changes } = run(steady);
    expect(changes.length).toBeLessThanOrEqual(1);
    expect(rate(long, 399_000)).toBeCloseTo(0.9, 1);
  });

  it('a favourite that degrades loses its good name within a few roots, not a half-life', () => {
    // 0.9 for 200 roots, then every other one fails for good: the long history alone would still say 0.75 after 20 more.
    const outcomes = Array.from({ length: 230 }, (_, i) => (i < 200 ? i % 10 !== 3 : i % 10 < 3));
    const { long, changes } = run(outcomes);
    expect(changes.length).toBeGreaterThan(0);
    expect(changes[0]! - 200).toBeLessThan(15);
    expect(rate(long, 229_000)!).toBeLessThan(0.45);
    const unaware = outcomes.reduce<DecayedSums | null>((value, success, i) => addToSums(value, success ? ok : failed, i * 1000, H), null);
    expect(rate(unaware, 229_000)!).toBeGreaterThan(0.7);
  });

  it('after a change the long history equals the recent one, with its own half-life and every field', () => {
    const long = Array.from({ length: 50 }, () => ok).reduce<DecayedSums | null>((value, increments) => addToSums(value, increments, 0, H), null);
    const recent = Array.from({ length: 6 }, () => failed).reduce<DecayedSums | null>((value, increments) => addToSums(value, increments, 0, recentHalfLifeMs(H)), null);
    const at = 1000;
    const fold = foldSpecialistHistory(long, recent, failed, at, H);
    expect(fold.change?.long_rate).toBeCloseTo(50 / 51, 3);
    expect(fold.change?.recent_rate).toBe(0);
    const longAfter = addToSums(long, fold.long, at, H);
    const recentAfter = addToSums(recent, fold.recent, at, recentHalfLifeMs(H));
    expect(longAfter.half_life_ms).toBe(H);
    expect(specialistStats(longAfter, at).samples).toBeCloseTo(specialistStats(recentAfter, at).samples, 6);
    expect(rate(longAfter, at)).toBe(0);
    expect(specialistStats(longAfter, at).by_status.success ?? 0).toBeCloseTo(0, 9);
    expect(specialistStats(longAfter, at).latency_ms?.mean).toBeCloseTo(100, 6);
  });
});
