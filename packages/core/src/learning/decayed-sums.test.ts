import { describe, expect, it } from 'vitest';
import { addToSums, DECAYED_SUMS_FIELD_CAP, decayedSumsSchema, decayFactor, decaySums } from './decayed-sums.js';

const HOUR = 3_600_000;

describe('decayFactor', () => {
  it('halves once per half-life', () => {
    expect(decayFactor(HOUR, HOUR)).toBe(0.5);
    expect(decayFactor(3 * HOUR, HOUR)).toBe(0.125);
    expect(decayFactor(HOUR / 2, HOUR)).toBeCloseTo(Math.SQRT1_2, 12);
  });

  it('is 1 when no time passed or the clock went back', () => {
    expect(decayFactor(0, HOUR)).toBe(1);
    expect(decayFactor(-5 * HOUR, HOUR)).toBe(1);
    expect(decayFactor(Number.NaN, HOUR)).toBe(1);
  });
});

describe('decaySums', () => {
  it('decays every field with the value’s half-life and moves updated_at on', () => {
    const decayed = decaySums({ updated_at: 1000, half_life_ms: HOUR, sums: { n: 8, lat: 400 } }, 1000 + 2 * HOUR);
    expect(decayed).toEqual({ updated_at: 1000 + 2 * HOUR, half_life_ms: HOUR, sums: { n: 2, lat: 100 } });
  });

  it('never goes forwards in time', () => {
    const value = { updated_at: 5 * HOUR, half_life_ms: HOUR, sums: { n: 8 } };
    expect(decaySums(value, HOUR)).toEqual(value);
  });
});

describe('addToSums', () => {
  it('starts a value from nothing', () => {
    const value = addToSums(null, { n: 1, lat: 250 }, 7000, HOUR);
    expect(value).toEqual({ updated_at: 7000, half_life_ms: HOUR, sums: { lat: 250, n: 1 } });
    expect(decayedSumsSchema.parse(value)).toEqual(value);
  });

  it('decays the stored sums to now with their half-life, then adds, then takes the given half-life', () => {
    const stored = { updated_at: 0, half_life_ms: HOUR, sums: { n: 4, ok: 2 } };
    const value = addToSums(stored, { n: 1, fresh: 3 }, HOUR, 2 * HOUR);
    expect(value).toEqual({ updated_at: HOUR, half_life_ms: 2 * HOUR, sums: { n: 3, ok: 1, fresh: 3 } });
  });

  it('adds without decaying when now is before updated_at, and keeps the later time', () => {
    const stored = { updated_at: 10 * HOUR, half_life_ms: HOUR, sums: { n: 4 } };
    expect(addToSums(stored, { n: 1 }, 9 * HOUR, HOUR)).toEqual({ updated_at: 10 * HOUR, half_life_ms: HOUR, sums: { n: 5 } });
  });

  it('adds no new field beyond the cap, in sorted field order, but still adds to existing ones', () => {
    const sums: Record<string, number> = {};
    for (let i = 0; i < DECAYED_SUMS_FIELD_CAP - 1; i++) sums[`f${i}`] = 1;
    const value = addToSums({ updated_at: 0, half_life_ms: HOUR, sums }, { zz: 1, aa: 1, f0: 2 }, 0, HOUR);
    expect(Object.keys(value.sums)).toHaveLength(DECAYED_SUMS_FIELD_CAP);
    expect(value.sums.aa).toBe(1);
    expect(value.sums.zz).toBeUndefined();
    expect(value.sums.f0).toBe(3);
  });

  it('skips non-finite increments', () => {
    expect(addToSums(null, { n: Number.NaN, m: Infinity, k: 2 }, 0, HOUR).sums).toEqual({ k: 2 });
  });

  it('equals the sum of each increment decayed on its own', () => {
    const times = [0, 1000, 50_000, 50_000, 3 * HOUR];
    const value = times.reduce((sums, t) => addToSums(sums, { n: 1 }, t, HOUR), addToSums(null, {}, 0, HOUR));
    const end = 5 * HOUR;
    const expected = times.reduce((sum, t) => sum + decayFactor(end - t, HOUR), 0);
    expect(decaySums(value, end).sums.n).toBeCloseTo(expected, 12);
  });
});
