import type { BeadsWrites } from '@tierflow/beads';
import { TierflowError } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { runScript, type RedisScript } from './scripts.js';

/**
 * The writes the runtime queues: an ioredis MULTI or pipeline satisfies it, and so does a
 * {@link FencedBatch}, so the same code writes a pass's records either way.
 */
export interface RedisWrites extends BeadsWrites {
  set(key: string, value: string): unknown;
  set(key: string, value: string, px: 'PX', milliseconds: number): unknown;
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): unknown;
  del(...keys: string[]): unknown;
  xadd(key: string, id: string, ...fields: string[]): unknown;
  pexpire(key: string, milliseconds: number): unknown;
  pexpire(key: string, milliseconds: number, nx: 'NX'): unknown;
  zadd(key: string, score: number, member: string): unknown;
  zrem(key: string, ...members: string[]): unknown;
  get(key: string): unknown;
}

/** A pass that has lost its job's lock: another worker has the job now, and nothing of this pass was written. */
export class LockLostError extends TierflowError {
  override readonly name = 'LockLostError';
  constructor(jobId: string) {
    super(`job ${jobId} is no longer this worker's (its lock lapsed and another worker took it): this pass's writes were dropped`, {
      code: 'lock_lost',
      retryable: false,
    });
  }
}

/**
 * Lua that runs the writes a {@link FencedBatch} encodes (each as its word count followed by its
 * words) from ARGV[first] to ARGV[last], both Lua expressions, leaving their replies in `replies`.
 * Every script that runs a batch decodes it here, beside the encoder.
 */
export function runWritesLua(first: string, last: string): string {
  return `
local replies = {}
local at = ${first}
while at <= ${last} do
  local words = tonumber(ARGV[at])
  replies[#replies + 1] = redis.call(unpack(ARGV, at + 1, at + words))
  at = at + words + 1
end`;
}

/**
 * Commits a pass's writes only while the pass still holds its job's lock, all or nothing.
 *   KEYS[1]   the job's lock key (BullMQ's)
 *   KEYS[2..] the keys the writes touch, but for the audit streams and reads (see xadd, get)
 *   ARGV[1]   the pass's lock token
 *   ARGV[2..] the writes, each as its word count followed by its words: 3, SET, key, value, …
 * Returns the replies of the writes in order, or the error LOCK_LOST having written nothing.
 */
const FENCED_COMMIT: RedisScript = {
  name: 'fencedCommit',
  lua: `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('LOCK_LOST') end
${runWritesLua('2', '#ARGV')}
return replies`,
};

const MAX_KEYS_PER_WRITE = 1_000;

/**
 * Writes recorded now and sent later in one script that first checks the job's lock token. A
 * worker that lost its lock (paused, a long GC, cut off from Redis) and resumes must not
 * overwrite what the worker that took its job over has written: its commit is refused whole,
 * with {@link LockLostError}. Like MULTI, the writes run together; unlike MULTI, not at all
 * once the lock is someone else's.
 */
export class FencedBatch implements RedisWrites {
  private readonly args: string[] = [];
  private readonly keys = new Set<string>();
  private count = 0;

  set(key: string, value: string, ...options: (string | number)[]): this {
    return this.add([key], 'SET', key, value, ...options);
  }

  del(...keys: string[]): this {
    // In chunks: the script spreads each write's words onto Lua's stack, which holds about 8,000.
    for (let start = 0; start < keys.length; start += MAX_KEYS_PER_WRITE) {
      const chunk = keys.slice(start, start + MAX_KEYS_PER_WRITE);
      this.add(chunk, 'DEL', ...chunk);
    }
    return this;
  }

  // The streams written here are the audit trails, which tier users reach only through an ACL
  // selector of their own, and Redis allows a script only when one selector allows all of its
  // declared keys. So their keys are not declared: the commands inside the script are still
  // checked one by one, and the keys share the deployment's hash tag, so a Cluster still runs
  // the whole script on one slot.
  xadd(key: string, id: string, ...fields: string[]): this {
    return this.add([], 'XADD', key, id, ...fields);
  }

  pexpire(key: string, milliseconds: number, ...options: string[]): this {
    return this.add([], 'PEXPIRE', key, milliseconds, ...options);
  }

  hsetnx(key: string, field: string, value: string | number): this {
    return this.add([key], 'HSETNX', key, field, value);
  }

  zadd(key: string, score: number, member: string): this {
    return this.add([key], 'ZADD', key, score, member);
  }

  zrem(key: string, ...members: string[]): this {
    return this.add([key], 'ZREM', key, ...members);
  }

  // Reads go undeclared too: a script's declared keys count as written (ACL key permissions), and
  // what a pass reads in its commit (a first_success round's members) is another party's record.
  get(key: string): this {
    return this.add([], 'GET', key);
  }

  /** How many writes are queued. */
  get size(): number {
    return this.count;
  }

  /** The keys to declare and the writes' words, for a script that runs them under a fence of its own (JobFinisher). */
  scriptForm(): { readonly keys: readonly string[]; readonly words: readonly string[] } {
    return { keys: [...this.keys], words: this.args };
  }

  /**
   * Sends the writes, fenced by the lock `token` holds at `lockKey`; answers their replies in
   * order (a missing value as null).
   *
   * @throws LockLostError when the lock is not (or no longer) `token`'s; nothing was written.
   */
  async commit(redis: RedisClient, lockKey: string, token: string, jobId: string): Promise<unknown[]> {
    try {
      return (await runScript(redis, FENCED_COMMIT, [lockKey, ...this.keys], [token, ...this.args])) as unknown[];
    } catch (error) {
      if (error instanceof Error && /\bLOCK_LOST\b/.test(error.message)) throw new LockLostError(jobId);
      throw error;
    }
  }

  private add(keys: readonly string[], ...words: (string | number)[]): this {
    for (const key of keys) this.keys.add(key);
    this.args.push(String(words.length), ...words.map(String));
    this.count++;
    return this;
  }
}
