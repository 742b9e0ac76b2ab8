import { addToSums, decayedSumsSchema, type DecayedSums } from '@tierflow/core';
import type { RedisClient } from './scan-keys.js';
import { parseBeadsKey } from './beads-key.js';
import type { AddDecayedOptions } from './decayed-add.js';
import { BeadsStore, multiBatch, queueWrites, type BeadsBatch, type BeadsEntry, type BeadsSetOptions, type PreparedAdd, type PreparedWrite } from './store.js';
import type { BeadsStoreOptions } from './store-options.js';
import { decodeBeadsValue, type BeadsValueSchema } from './value-codec.js';

/**
 * How waiting writes are sent when they cannot wait for their owner's transaction: `queue`
 * puts them on the batch the committer sends. By default, a MULTI of their own.
 */
export type BeadsCommit = (queue: (batch: BeadsBatch) => void) => Promise<void>;

/** What waits for one key: the last value set, if any, then the decayed adds made after it. */
interface Waiting {
  readonly set: PreparedWrite | null;
  readonly adds: readonly PreparedAdd[];
}

/**
 * A store whose plain writes (`set`, `setMany`, `addDecayed`) wait, checked, until their owner
 * queues them on its own MULTI with {@link writeInto}: a tier worker gives one to each processing
 * pass, so what a policy writes lands in the transaction that sends its delegations or its
 * outcome, together or not at all, and costs no round trip of its own. Reads see the waiting
 * writes (a waiting decayed add as `@tierflow/core`'s `addToSums` computes it). Writes whose
 * answer depends on Redis (`setIfAbsent`, `delete`) and `keys` first send what is waiting. A
 * waiting decayed add on a key that turns out to hold something other than decayed sums adds
 * nothing, and fails nothing else of the transaction.
 */
export class DeferredBeadsStore extends BeadsStore {
  /** Waiting writes by full key; a later set of a key replaces whatever waited for it. */
  private readonly pending = new Map<string, Waiting>();

  constructor(
    redis: RedisClient,
    options: BeadsStoreOptions,
    /** Sends what is waiting before a write that cannot wait (the runtime fences it by the job's lock). */
    private readonly commit: BeadsCommit = async (queue) => {
      const multi = redis.multi();
      queue(multiBatch(multi));
      const results = await multi.exec();
      const failed = results?.find(([error]) => error !== null)?.[0];
      if (failed) throw failed;
    },
  ) {
    super(redis, options);
  }

  /** How many writes are waiting. */
  get pendingWrites(): number {
    let count = 0;
    for (const waiting of this.pending.values()) count += (waiting.set ? 1 : 0) + waiting.adds.length;
    return count;
  }

  override set(key: string, value: unknown, options: BeadsSetOptions = {}): Promise<void> {
    return this.hold(() => [this.prepare({ key, value, ...options })]);
  }

  override setMany(entries: readonly BeadsEntry[]): Promise<void> {
    // Every entry is checked before any waits: one refused key holds none of them.
    return this.hold(() => entries.map((entry) => this.prepare(entry)));
  }

  override addDecayed(key: string, increments: Readonly<Record<string, number>>, options: AddDecayedOptions): Promise<void> {
    try {
      const add = this.prepareAdd(key, increments, options);
      const waiting = this.pending.get(add.redisKey);
      this.pending.set(add.redisKey, { set: waiting?.set ?? null, adds: [...(waiting?.adds ?? []), add] });
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  override async get<T = unknown>(key: string, schema?: BeadsValueSchema<T>): Promise<T | null> {
    const parsed = parseBeadsKey(key);
    const waiting = this.pending.get(this.base + parsed.key);
    if (!waiting) return super.get(key, schema);
    const text = waitingText(waiting, waiting.set ? null : await this.redis.get(this.base + parsed.key));
    return text === null ? null : decodeBeadsValue(parsed.key, text, schema);
  }

  override async getTexts(keys: readonly string[]): Promise<(string | null)[]> {
    const parsed = keys.map(parseBeadsKey);
    // Redis is read for every key that waits for no set: those with nothing waiting, and those with only adds.
    const unset = [...new Set(parsed.map((p) => p.key).filter((k) => !this.pending.get(this.base + k)?.set))];
    const texts = unset.length === 0 ? [] : await this.redis.mget(unset.map((k) => this.base + k));
    const stored = new Map(unset.map((k, i) => [k, texts[i] ?? null]));
    return parsed.map((p) => {
      const waiting = this.pending.get(this.base + p.key);
      return waiting ? waitingText(waiting, stored.get(p.key) ?? null) : (stored.get(p.key) ?? null);
    });
  }

  override async exists(key: string): Promise<boolean> {
    return this.pending.has(this.redisKey(key)) || super.exists(key);
  }

  override async setIfAbsent(key: string, value: unknown, options: BeadsSetOptions = {}): Promise<boolean> {
    await this.flush();
    return super.setIfAbsent(key, value, options);
  }

  override async delete(key: string): Promise<boolean> {
    await this.flush();
    return super.delete(key);
  }

  override async keys(pattern: string): Promise<string[]> {
    await this.flush();
    return super.keys(pattern);
  }

  /** Queues the waiting writes on `pipeline` (the caller's MULTI, or another batch) and forgets them. */
  writeInto(batch: BeadsBatch): void {
    for (const waiting of this.pending.values()) {
      if (waiting.set) queueWrites(batch, [waiting.set]);
      for (const add of waiting.adds) batch.addDecayed(add.redisKey, add.words);
    }
    this.pending.clear();
  }

  /** Sends the waiting writes now, in one batch (see the constructor's `commit`). */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    await this.commit((batch) => this.writeInto(batch));
  }

  /** Holds the checked writes; a refusal rejects, as the store's own writes do. */
  private hold(check: () => readonly PreparedWrite[]): Promise<void> {
    try {
      for (const write of check()) {
        this.pending.delete(write.redisKey);
        this.pending.set(write.redisKey, { set: write, adds: [] });
      }
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/**
 * The text a key will hold once what waits for it is written: the value set, or the stored one,
 * with the waiting adds made as the script makes them; adds to something other than decayed sums
 * change nothing, as the script refuses them.
 */
function waitingText(waiting: Waiting, stored: string | null): string | null {
  const base = waiting.set ? waiting.set.text : stored;
  if (waiting.adds.length === 0) return base;
  let value: DecayedSums | null = null;
  if (base !== null) {
    let json: unknown;
    try {
      json = JSON.parse(base);
    } catch {
      return base;
    }
    const parsed = decayedSumsSchema.safeParse(json);
    if (!parsed.success) return base;
    value = parsed.data;
  }
  for (const add of waiting.adds) value = addToSums(value, add.increments, add.options.now, add.options.halfLifeMs);
  return JSON.stringify(value);
}
