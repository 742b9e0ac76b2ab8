import { parseBeadsKey, type Beads } from '@tierflow/beads';
import { decayedSumsSchema, type DecayedSums } from '@tierflow/core';
import { fastSafeParse, isTierflowError } from '@tierflow/protocol';
import type { TierLogger } from '../policy/handler.js';

/** Where a reader of history says that a value could not be read (it counts as no history). */
export interface HistoryReadOptions {
  readonly log?: Pick<TierLogger, 'warn'>;
}

/**
 * The decayed sums at `keys`, in order, in one read; null where there are none, and where the
 * value cannot be read (not JSON, or not decayed sums), which is warned: unreadable history is
 * no history, never a failure. Redis errors propagate.
 */
export async function readDecayedValues(beads: Pick<Beads, 'getMany'>, keys: readonly string[], options: HistoryReadOptions = {}): Promise<(DecayedSums | null)[]> {
  // A name too long for a key (a task type is the planner's text) has no history.
  const valid = keys.filter(isValidKey);
  if (valid.length === 0) return keys.map(() => null);
  let values: unknown[];
  try {
    values = await beads.getMany(valid);
  } catch (error) {
    if (!isCorrupt(error)) throw error;
    // One of them is not JSON: each is read alone, so that the others still count.
    values = await Promise.all(valid.map((key) => readAlone(() => beads.getMany([key]).then(([value]) => value), key, options)));
  }
  const read = new Map(valid.map((key, i) => [key, values[i]]));
  return keys.map((key) => decayedValue(read.get(key) ?? null, key, options));
}

/** The decayed sums at `key`; null without, or when they cannot be read (warned). */
export async function readDecayedValue(beads: Pick<Beads, 'get'>, key: string, options: HistoryReadOptions = {}): Promise<DecayedSums | null> {
  if (!isValidKey(key)) return null;
  return decayedValue(await readAlone(() => beads.get(key), key, options), key, options);
}

function decayedValue(value: unknown, key: string, options: HistoryReadOptions): DecayedSums | null {
  if (value === null || value === undefined) return null;
  const parsed = fastSafeParse(decayedSumsSchema, value);
  if (parsed.success) return parsed.data;
  options.log?.warn('history value of an unknown shape, read as no history', { key });
  return null;
}

async function readAlone(read: () => Promise<unknown>, key: string, options: HistoryReadOptions): Promise<unknown> {
  try {
    return (await read()) ?? null;
  } catch (error) {
    if (!isCorrupt(error)) throw error;
    options.log?.warn('history value is not JSON, read as no history', { key });
    return null;
  }
}

function isCorrupt(error: unknown): boolean {
  return isTierflowError(error) && error.code === 'beads_corrupt';
}

/** Whether `key` makes a Beads key (a name from a planner's text may be too long to). */
export function isValidKey(key: string): boolean {
  try {
    parseBeadsKey(key);
    return true;
  } catch {
    return false;
  }
}
