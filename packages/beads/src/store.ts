import { TierflowError, type TierName } from '@tierflow/protocol';
import type { ChainableCommander } from 'ioredis';
import type { Beads } from './beads.js';
import { ADD_DECAYED_SCRIPT, decayedAddWords, decayedTtl, runDecayedAdd, type AddDecayedOptions } from './decayed-add.js';
import { beadsRef, parseBeadsKey } from './beads-key.js';
import { checkWrite } from './permissions.js';
import { escapeRedisGlob } from './redis-glob.js';
import { scanKeys, type RedisClient } from './scan-keys.js';
import { resolveBeadsStoreOptions, resolveTtl, type BeadsStoreOptions } from './store-options.js';
import { decodeBeadsValue, encodeBeadsValue, type BeadsValueSchema } from './value-codec.js';

/** Options of one write. */
export interface BeadsSetOptions {
  /** Expiry in milliseconds; `null` for none; the store's `defaultTtlMs` when left out. */
  readonly ttlMs?: number | null;
}

/** One write of a {@link BeadsStore.setMany} batch. */
export interface BeadsEntry extends BeadsSetOptions {
  readonly key: string;
  readonly value: unknown;
}

/**
 * Beads, the shared state every tier reads and each tier writes only in its own namespaces, on
 * Redis. Values are JSON. The key `task/x` lives at `<prefix>:beads:task/x`; every method takes a
 * key (`task/x`) or a reference (`beads:task/x`). Writes check the permission before touching
 * Redis, so a refused write writes nothing.
 */
export class BeadsStore implements Beads {
  readonly tier: TierName;
  readonly prefix: string;
  readonly defaultTtlMs: number | null;
  protected readonly redis: RedisClient;
  protected readonly base: string;

  /** @throws TierflowError (code `invalid_config`) for bad options. */
  constructor(redis: RedisClient, options: BeadsStoreOptions) {
    const resolved = resolveBeadsStoreOptions(options);
    this.redis = redis;
    this.tier = resolved.tier;
    this.prefix = resolved.prefix;
    this.defaultTtlMs = resolved.defaultTtlMs;
    this.base = `${resolved.prefix}:beads:`;
  }

  /** A store over the same connection, writing as another tier (one connection per process). */
  withTier(tier: TierName): BeadsStore {
    return new BeadsStore(this.redis, { tier, prefix: this.prefix, defaultTtlMs: this.defaultTtlMs });
  }

  /** The full Redis key of a Beads key: `task/x` → `{tierflow}:beads:task/x`. */
  redisKey(key: string): string {
    return this.base + parseBeadsKey(key).key;
  }

  /** The reference form: `task/x` → `beads:task/x`. */
  ref(key: string): string {
    return beadsRef(key);
  }

  /**
   * The value at `key`, or `null` when there is none. Without `schema`, `T` is the caller's word;
   * with one (a zod schema, say), the value is checked.
   *
   * @throws TierflowError with code `beads_corrupt` (not JSON) or `beads_invalid_value` (refused by `schema`).
   */
  async get<T = unknown>(key: string, schema?: BeadsValueSchema<T>): Promise<T | null> {
    const parsed = parseBeadsKey(key);
    const text = await this.redis.get(this.base + parsed.key);
    return text === null ? null : decodeBeadsValue(parsed.key, text, schema);
  }

  /** The values at `keys`, in order, `null` where there is none; one MGET. */
  async getMany<T = unknown>(keys: readonly string[], schema?: BeadsValueSchema<T>): Promise<(T | null)[]> {
    const texts = await this.getTexts(keys);
    return keys.map((key, i) => {
      const text = texts[i];
      return text === null || text === undefined ? null : decodeBeadsValue(parseBeadsKey(key).key, text, schema);
    });
  }

  /** The JSON texts stored at `keys`, in order, `null` where there is none, unparsed: for a reader that passes them on as they are (the recording). One MGET. */
  async getTexts(keys: readonly string[]): Promise<(string | null)[]> {
    if (keys.length === 0) return [];
    const texts = await this.redis.mget(keys.map((key) => this.base + parseBeadsKey(key).key));
    return texts.map((text) => text ?? null);
  }

  /**
   * Writes `value` as JSON, expiring after `ttlMs` (default: the store's `defaultTtlMs`; `null`:
   * never). One `SET … PX`, which also replaces any earlier expiry.
   *
   * @throws BeadsPermissionError when this tier may not write `key`, before anything is written.
   */
  async set(key: string, value: unknown, options: BeadsSetOptions = {}): Promise<void> {
    const write = this.prepare({ key, value, ...options });
    await (write.ttlMs === null ? this.redis.set(write.redisKey, write.text) : this.redis.set(write.redisKey, write.text, 'PX', write.ttlMs));
  }

  /**
   * Adds `increments` to the decayed sums at `key` (`@tierflow/core`'s `DecayedSums`), in one
   * script, so adds from many processes at once lose none: the stored sums decay to `now`, then
   * each increment is added to its field (a new field beyond the core's field cap is not). The
   * value stays plain JSON, readable with `get`.
   *
   * @throws BeadsPermissionError when this tier may not write `key`, before anything is written;
   *   TierflowError (permanent) with code `invalid_argument` for a bad half-life or clock,
   *   or `beads_invalid_value` when `key` holds something other than decayed sums
   *   (left as it is: nothing is added).
   */
  async addDecayed(key: string, increments: Readonly<Record<string, number>>, options: AddDecayedOptions): Promise<void> {
    const add = this.prepareAdd(key, increments, options);
    if (!(await runDecayedAdd(this.redis, add.redisKey, add.words))) {
      throw TierflowError.permanent(`beads:${add.key} holds a value that is not decayed sums: nothing was added to it`, { code: 'beads_invalid_value' });
    }
  }

  /**
   * Writes every entry in one MULTI/EXEC transaction. Every entry is checked first: if this tier
   * may not write one of them, or one has no JSON form, none is written.
   *
   * @throws BeadsPermissionError for the first refused key.
   */
  async setMany(entries: readonly BeadsEntry[]): Promise<void> {
    const writes = entries.map((entry) => this.prepare(entry));
    if (writes.length === 0) return;
    const multi = this.redis.multi();
    queueWrites(multi, writes);
    const results = await multi.exec();
    const failed = results?.find(([error]) => error !== null)?.[0];
    if (failed) throw failed;
  }

  /**
   * Writes `value` only if `key` holds nothing (`SET NX`): the first of several racing writers
   * wins. True when this call wrote it.
   *
   * @throws BeadsPermissionError when this tier may not write `key`.
   */
  async setIfAbsent(key: string, value: unknown, options: BeadsSetOptions = {}): Promise<boolean> {
    const write = this.prepare({ key, value, ...options });
    const reply = await (write.ttlMs === null ? this.redis.set(write.redisKey, write.text, 'NX') : this.redis.set(write.redisKey, write.text, 'PX', write.ttlMs, 'NX'));
    return reply === 'OK';
  }

  /**
   * Removes `key`; true if it was there. A delete is a write: the same permissions apply.
   *
   * @throws BeadsPermissionError when this tier may not write `key`.
   */
  async delete(key: string): Promise<boolean> {
    const parsed = checkWrite(this.tier, key);
    return (await this.redis.del(this.base + parsed.key)) > 0;
  }

  async exists(key: string): Promise<boolean> {
    return (await this.redis.exists(this.redisKey(key))) > 0;
  }

  /**
   * The Beads keys matching a glob under one namespace, e.g. `execution/outputs/*`, sorted.
   * Walks the keyspace with SCAN, never KEYS, so Redis is not blocked on a large keyspace; a key
   * written or removed during the walk may or may not be listed.
   */
  async keys(pattern: string): Promise<string[]> {
    const parsed = parseBeadsKey(pattern);
    const found = await scanKeys(this.redis, escapeRedisGlob(this.base) + parsed.key);
    return found.map((redisKey) => redisKey.slice(this.base.length)).sort();
  }

  protected prepare(entry: BeadsEntry): PreparedWrite {
    const parsed = checkWrite(this.tier, entry.key);
    return {
      redisKey: this.base + parsed.key,
      text: encodeBeadsValue(parsed.key, entry.value),
      ttlMs: resolveTtl(entry.ttlMs, this.defaultTtlMs),
    };
  }

  protected prepareAdd(key: string, increments: Readonly<Record<string, number>>, options: AddDecayedOptions): PreparedAdd {
    const parsed = checkWrite(this.tier, key);
    const ttlMs = resolveTtl(decayedTtl(options), null);
    return { key: parsed.key, redisKey: this.base + parsed.key, words: decayedAddWords(parsed.key, increments, options, ttlMs), increments: { ...increments }, options };
  }
}

/** A checked decayed add: the Beads key, the full key, its script words, and what it adds (for reads before it is sent). */
export interface PreparedAdd {
  readonly key: string;
  readonly redisKey: string;
  readonly words: readonly string[];
  readonly increments: Readonly<Record<string, number>>;
  readonly options: AddDecayedOptions;
}

/** A checked write: the full key, the JSON text, and the expiry (null for none). */
export interface PreparedWrite {
  readonly redisKey: string;
  readonly text: string;
  readonly ttlMs: number | null;
}

/**
 * What a batch of Beads writes is queued on: an ioredis MULTI or pipeline, or any batch with
 * these `SET` forms (the runtime's lock-fenced batch, say).
 */
export interface BeadsWrites {
  set(key: string, value: string): unknown;
  set(key: string, value: string, px: 'PX', milliseconds: number): unknown;
}

/**
 * What a deferred store's waiting writes are queued on: the `SET` forms, and decayed adds, which
 * a script that runs the batch runs with `ADD_DECAYED_LUA` (the runtime's fenced batch), or
 * a MULTI as EVALs ({@link multiBatch}).
 */
export interface BeadsBatch extends BeadsWrites {
  /** A decayed add on the full key `key`, with the words of {@link ADD_DECAYED_SCRIPT}'s ARGV. */
  addDecayed(key: string, words: readonly string[]): unknown;
}

/** An ioredis MULTI or pipeline as a {@link BeadsBatch}: each decayed add is an EVAL of {@link ADD_DECAYED_SCRIPT} on it. */
export function multiBatch(pipeline: ChainableCommander): BeadsBatch {
  return {
    set: (key: string, value: string, px?: 'PX', milliseconds?: number) => (px === undefined ? pipeline.set(key, value) : pipeline.set(key, value, px, milliseconds!)),
    addDecayed: (key: string, words: readonly string[]) => pipeline.eval(ADD_DECAYED_SCRIPT, 1, key, ...words),
  };
}

/** Queues one `SET … [PX]` per write on a MULTI, pipeline or other batch. */
export function queueWrites(pipeline: BeadsWrites, writes: Iterable<PreparedWrite>): void {
  for (const write of writes) {
    if (write.ttlMs === null) pipeline.set(write.redisKey, write.text);
    else pipeline.set(write.redisKey, write.text, 'PX', write.ttlMs);
  }
}
