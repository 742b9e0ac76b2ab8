import { addToSums, type DecayedSums } from '@tierflow/core';
import { describe, expect, it } from 'vitest';
import { cellsHistoryBeads, mergeCellValues, type HistoryBeads } from './history-cells.js';

const HOUR = 3_600_000;

describe('mergeCellValues', () => {
  it('adds the cells’ sums decayed to the latest update, with the latest half-life', () => {
    const older: DecayedSums = { updated_at: 0, half_life_ms: HOUR, sums: { n: 4, ok: 2 } };
    const newer: DecayedSums = { updated_at: HOUR, half_life_ms: 2 * HOUR, sums: { n: 1, lat: 10 } };
    expect(mergeCellValues([older, null, newer])).toEqual({ updated_at: HOUR, half_life_ms: 2 * HOUR, sums: { n: 3, ok: 1, lat: 10 } });
  });

  it('gives what one cell holds as it is, unreadable too, and null when none holds anything', () => {
    const one: DecayedSums = { updated_at: 5, half_life_ms: HOUR, sums: { n: 1 } };
    expect(mergeCellValues([null, one, undefined])).toBe(one);
    expect(mergeCellValues([null, 'not sums'])).toBe('not sums');
    expect(mergeCellValues([null, null])).toBeNull();
    // Beside readable sums, an unreadable value counts for nothing.
    expect(mergeCellValues([{ sums: 'bad' }, one, one])).toEqual({ updated_at: 5, half_life_ms: HOUR, sums: { n: 2 } });
  });

  it('equals one history that took every cell’s adds', () => {
    const adds = [
      { now: 0, increments: { n: 1, ok: 1 } },
      { now: HOUR, increments: { n: 1 } },
      { now: 3 * HOUR, increments: { n: 1, ok: 1 } },
    ];
    const together = adds.reduce<DecayedSums | null>((value, add) => addToSums(value, add.increments, add.now, HOUR), null)!;
    const cellA = addToSums(addToSums(null, adds[0]!.increments, 0, HOUR), adds[2]!.increments, 3 * HOUR, HOUR);
    const cellB = addToSums(null, adds[1]!.increments, HOUR, HOUR);
    const merged = mergeCellValues([cellA, cellB]) as DecayedSums;
    expect(merged.updated_at).toBe(together.updated_at);
    for (const field of Object.keys(together.sums)) expect(merged.sums[field]).toBeCloseTo(together.sums[field]!, 12);
  });
});

describe('cellsHistoryBeads', () => {
  const cell = (values: Record<string, unknown>): HistoryBeads => ({
    keys: (pattern) => Promise.resolve(Object.keys(values).filter((key) => key.startsWith(pattern.replace('*', '')))),
    getMany: <T>(keys: readonly string[]) => Promise.resolve(keys.map((key) => (values[key] ?? null) as T | null)),
    get: <T>(key: string) => Promise.resolve((values[key] ?? null) as T | null),
  });

  it('is the one cell itself when there is one', () => {
    const only = cell({});
    expect(cellsHistoryBeads([only])).toBe(only);
  });

  it('lists the union of the cells’ keys and reads each key merged', async () => {
    const sums = (n: number): DecayedSums => ({ updated_at: 0, half_life_ms: HOUR, sums: { n } });
    const beads = cellsHistoryBeads([cell({ 'history/a': sums(1), 'history/b': sums(2) }), cell({ 'history/b': sums(3), 'history/c': sums(4) })]);
    expect(await beads.keys('history/*')).toEqual(['history/a', 'history/b', 'history/c']);
    expect(await beads.getMany(['history/b', 'history/c', 'history/d'])).toEqual([sums(5), sums(4), null]);
    expect(await beads.get('history/a')).toEqual(sums(1));
  });
});
