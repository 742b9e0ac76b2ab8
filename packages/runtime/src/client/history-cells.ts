import type { Beads } from '@tierflow/beads';
import { decayedSumsSchema, decaySums, type DecayedSums } from '@tierflow/core';
import { fastSafeParse } from '@tierflow/protocol';

/** What the history report reads of Beads. */
export type HistoryBeads = Pick<Beads, 'keys' | 'getMany' | 'get'>;

/**
 * Every cell's Beads read as one, for the history report: each cell's Monitor keeps the history of
 * the runs in its cell, and decayed sums add up exactly once decayed to one moment, so the report
 * over the merged values is the deployment's. Keys are the union of the cells'. With one cell, that
 * cell's Beads as they are.
 */
export function cellsHistoryBeads(cells: readonly HistoryBeads[]): HistoryBeads {
  if (cells.length === 1) return cells[0]!;
  return {
    keys: async (pattern) => [...new Set((await Promise.all(cells.map((cell) => cell.keys(pattern)))).flat())].sort(),
    getMany: async <T>(keys: readonly string[]) => {
      const read = await Promise.all(cells.map((cell) => cell.getMany(keys)));
      return keys.map((_, index) => mergeCellValues(read.map((values) => values[index]))) as (T | null)[];
    },
    get: async <T>(key: string) => mergeCellValues(await Promise.all(cells.map((cell) => cell.get(key)))) as T | null,
  };
}

/**
 * One key's values in several cells as one: their decayed sums decayed to the latest `updated_at`
 * and added, with the half-life of the latest. A value that is not decayed sums counts for nothing
 * beside readable ones; alone, it is given as it is, for the reader to judge (and warn of). Pure.
 */
export function mergeCellValues(values: readonly unknown[]): unknown {
  const present = values.filter((value) => value !== null && value !== undefined);
  if (present.length <= 1) return present[0] ?? null;
  const readable = present.flatMap((value) => {
    const parsed = fastSafeParse(decayedSumsSchema, value);
    return parsed.success ? [parsed.data] : [];
  });
  if (readable.length === 0) return present[0];
  const latest = readable.reduce((a, b) => (b.updated_at > a.updated_at ? b : a));
  const sums: Record<string, number> = {};
  for (const value of readable) {
    for (const [field, sum] of Object.entries(decaySums(value, latest.updated_at).sums)) sums[field] = (sums[field] ?? 0) + sum;
  }
  const merged: DecayedSums = { updated_at: latest.updated_at, half_life_ms: latest.half_life_ms, sums };
  return merged;
}
