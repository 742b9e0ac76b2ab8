import type { AddDecayedOptions } from './decayed-add.js';
import type { BeadsEntry, BeadsSetOptions } from './store.js';
import type { BeadsValueSchema } from './value-codec.js';

/**
 * What a tier's own code gets of Beads: reads anywhere, writes where its tier may, by Beads key
 * (`task/x`) or reference (`beads:task/x`). No way to act as another tier and no raw Redis keys,
 * so a policy's writes always go through the runtime's transaction with the tier's permissions.
 */
export interface Beads {
  get<T = unknown>(key: string, schema?: BeadsValueSchema<T>): Promise<T | null>;
  getMany<T = unknown>(keys: readonly string[], schema?: BeadsValueSchema<T>): Promise<(T | null)[]>;
  set(key: string, value: unknown, options?: BeadsSetOptions): Promise<void>;
  setMany(entries: readonly BeadsEntry[]): Promise<void>;
  setIfAbsent(key: string, value: unknown, options?: BeadsSetOptions): Promise<boolean>;
  /** Adds to the decayed sums at `key` (`@tierflow/core`'s `DecayedSums`) atomically (see `BeadsStore.addDecayed`). */
  addDecayed(key: string, increments: Readonly<Record<string, number>>, options: AddDecayedOptions): Promise<void>;
  delete(key: string): Promise<boolean>;
  exists(key: string): Promise<boolean>;
  keys(pattern: string): Promise<string[]>;
  /** The reference form of a key: `task/x` → `beads:task/x`. */
  ref(key: string): string;
}

/**
 * Only the {@link Beads} methods of `store`, so that what is handed to a tier's code cannot reach
 * the store's other methods (`withTier`, `redisKey`, …) even by a cast.
 */
export function beadsHandle(store: Beads): Beads {
  return Object.freeze({
    get: <T>(key: string, schema?: BeadsValueSchema<T>) => store.get(key, schema),
    getMany: <T>(keys: readonly string[], schema?: BeadsValueSchema<T>) => store.getMany(keys, schema),
    set: (key: string, value: unknown, options?: BeadsSetOptions) => store.set(key, value, options),
    setMany: (entries: readonly BeadsEntry[]) => store.setMany(entries),
    setIfAbsent: (key: string, value: unknown, options?: BeadsSetOptions) => store.setIfAbsent(key, value, options),
    addDecayed: (key: string, increments: Readonly<Record<string, number>>, options: AddDecayedOptions) => store.addDecayed(key, increments, options),
    delete: (key: string) => store.delete(key),
    exists: (key: string) => store.exists(key),
    keys: (pattern: string) => store.keys(pattern),
    ref: (key: string) => store.ref(key),
  });
}
