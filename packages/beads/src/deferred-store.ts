import type { RedisClient } from './scan-keys.js';
import { parseBeadsKey } from './beads-key.js';
import { BeadsStore, queueWrites, type BeadsEntry, type BeadsSetOptions, type BeadsWrites, type PreparedWrite } from './store.js';
import type { BeadsStoreOptions } from './store-options.js';

/**
 * How waiting writes are sent when they cannot wait for their owner's transaction: `queue`
 * puts them on the batch the committer sends. By default, a MULTI of their own.
 */
export type BeadsCommit = (queue: (batch: BeadsWrites) => void) => Promise<void>;
import { decodeBeadsValue, type BeadsValueSchema } from './value-codec.js';

/**
 * A store whose plain writes (`set`, `setMany`) wait, checked, until their owner queues them on
 * its own MULTI with {@link writeInto}: a tier worker gives one to each processing pass, so what
 * a policy writes lands in the transaction that sends its delegations or its outcome, together
 * or not at all, and costs no round trip of its own. Reads see the waiting writes. Writes whose
 * answer depends on Redis (`setIfAbsent`, `delete`) and `keys` first send what is waiting.
 */
export class DeferredBeadsStore extends BeadsStore {
  /** Waiting writes by full key; a later write of a key replaces an earlier one. */
  private readonly pending = new Map<string, PreparedWrite>();

  constructor(
    redis: RedisClient,
    options: BeadsStoreOptions,
    /** Sends what is waiting before a write that cannot wait (the runtime fences it by the job's lock). */
    private readonly commit: BeadsCommit = async (queue) => {
      const multi = redis.multi();
      queue(multi);
      const results = await multi.exec();
      const failed = results?.find(([error]) => error !== null)?.[0];
      if (failed) throw failed;
    },
  ) {
    super(redis, options);
  }

  /** How many writes are waiting. */
  get pendingWrites(): number {
    return this.pending.size;
  }

  override set(key: string, value: unknown, options: BeadsSetOptions = {}): Promise<void> {
    return this.hold(() => [this.prepare({ key, value, ...options })]);
  }

  override setMany(entries: readonly BeadsEntry[]): Promise<void> {
    // Every entry is checked before any waits: one refused key holds none of them.
    return this.hold(() => entries.map((entry) => this.prepare(entry)));
  }

  override async get<T = unknown>(key: string, schema?: BeadsValueSchema<T>): Promise<T | null> {
    const parsed = parseBeadsKey(key);
    const waiting = this.pending.get(this.base + parsed.key);
    return waiting ? decodeBeadsValue(parsed.key, waiting.text, schema) : super.get(key, schema);
  }

  override async getMany<T = unknown>(keys: readonly string[], schema?: BeadsValueSchema<T>): Promise<(T | null)[]> {
    const parsed = keys.map(parseBeadsKey);
    const unseen = parsed.filter((p) => !this.pending.has(this.base + p.key));
    const stored = new Map(
      (
        await super.getMany<T>(
          unseen.map((p) => p.key),
          schema,
        )
      ).map((value, i) => [unseen[i]!.key, value]),
    );
    return parsed.map((p) => {
      const waiting = this.pending.get(this.base + p.key);
      return waiting ? decodeBeadsValue(p.key, waiting.text, schema) : (stored.get(p.key) ?? null);
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
  writeInto(pipeline: BeadsWrites): void {
    queueWrites(pipeline, this.pending.values());
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
        this.pending.set(write.redisKey, write);
      }
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
