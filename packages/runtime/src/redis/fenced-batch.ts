import { ADD_DECAYED_COMMAND, ADD_DECAYED_LUA, type BeadsBatch, type BeadsWrites, type RedisClient } from '@tierflow/beads';
import { TierflowError } from '@tierflow/protocol';
import { runScript, type RedisScript } from './scripts.js';
import { AUDIT_APPEND_COMMAND, AUDIT_APPEND_LUA } from './audit-append.js';

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

/** What a fenced script's failure means: {@link LockLostError} when its fence refused it (LOCK_LOST), else the error itself. */
export function lockLostOr(error: unknown, jobId: string): unknown {
  return error instanceof Error && /\bLOCK_LOST\b/.test(error.message) ? new LockLostError(jobId) : error;
}

/**
 * Lua that runs the writes a {@link FencedBatch} encodes from ARGV[first] to ARGV[last] (Lua
 * expressions), leaving their replies in `replies`. Each write is its word count, its references,
 * then its words. The references say, for each word after the command, what it stands for: `k` a
 * key declared to the script (the word is its KEYS index), `r` the value the job returns (the Lua
 * expression `returned`; the word is empty), `.` itself. So a key goes once, as a KEYS entry, and
 * a job's answer once, as BullMQ's return value. A Beads decayed add is no Redis command: it runs
 * as the Beads store's own Lua (`addDecayed`), which a script cannot call as a script; nor is an
 * audit append, which chains the entry to the trail's last (`appendAuditEntry`). Every script that
 * runs a batch decodes it here.
 */
export function runWritesLua(first: string, last: string, returned = 'nil'): string {
  return `${ADD_DECAYED_LUA}
${AUDIT_APPEND_LUA}
local replies = {}
local at = ${first}
while at <= ${last} do
  local words, refs = tonumber(ARGV[at]), ARGV[at + 1]
  if ARGV[at + 2] == '${AUDIT_APPEND_COMMAND}' then
    replies[#replies + 1] = appendAuditEntry(ARGV[at + 3], ARGV[at + 4])
  elseif refs == '' then
    replies[#replies + 1] = redis.call(unpack(ARGV, at + 2, at + 1 + words))
  else
    local call = {unpack(ARGV, at + 2, at + 1 + words)}
    for i = 1, #refs do
      local ref = string.sub(refs, i, i)
      if ref == 'k' then call[i + 1] = KEYS[tonumber(call[i + 1])] elseif ref == 'r' then call[i + 1] = ${returned} end
    end
    if call[1] == '${ADD_DECAYED_COMMAND}' then
      replies[#replies + 1] = addDecayed(call[2], call, 3)
    else
      replies[#replies + 1] = redis.call(unpack(call))
    end
  end
  at = at + words + 2
end`;
}

/**
 * Commits a pass's writes only while the pass still holds its job's lock, all or nothing.
 *   KEYS[1]   the job's lock key (BullMQ's)
 *   KEYS[2..] the keys the writes touch, but for the audit streams and reads (see xadd, get)
 *   ARGV[1]   the pass's lock token
 *   ARGV[2..] the writes, in {@link runWritesLua}'s form: 3, k, SET, 2, value, …
 * Returns the replies of the writes in order, or the error LOCK_LOST having written nothing.
 */
const FENCED_COMMIT: RedisScript = {
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
export class FencedBatch implements RedisWrites, BeadsBatch {
  private readonly writes: Write[] = [];
  /** The declared keys, each with its place among them. */
  private readonly keys = new Map<string, number>();
  private returned: { readonly value: unknown; readonly text: string } | null = null;

  set(key: string, value: string, ...options: (string | number)[]): this {
    return this.add([key], 'SET', key, value, ...options);
  }

  /**
   * Sets `key` to `value` as JSON text, where `value` is what the pass's job returns (a
   * de-duplication record, say). Completed with the job ({@link JobFinisher}), the text goes once,
   * as BullMQ's return value, and the script writes it here too.
   */
  setReturnValue(key: string, value: unknown, milliseconds: number): this {
    const text = JSON.stringify(value);
    this.returned = { value, text };
    return this.push([key], 'kr', ['SET', key, text, 'PX', String(milliseconds)]);
  }

  /** What {@link setReturnValue} was given, if it was called. */
  get returnValue(): { readonly value: unknown; readonly text: string } | null {
    return this.returned;
  }

  del(...keys: string[]): this {
    // In chunks: the script spreads each write's words onto Lua's stack, which holds about 8,000.
    for (let start = 0; start < keys.length; start += MAX_KEYS_PER_WRITE) {
      const chunk = keys.slice(start, start + MAX_KEYS_PER_WRITE);
      this.add(chunk, 'DEL', ...chunk);
    }
    return this;
  }

  // The streams written here are the audit trails and run records, which tier users reach only
  // through an ACL selector of their own, and Redis allows a script only when one selector allows
  // all of its declared keys. So their keys are not declared: the commands inside the script are
  // still checked one by one, and the keys share the deployment's hash tag, so a Cluster still
  // runs the whole script on one slot.
  xadd(key: string, id: string, ...fields: string[]): this {
    return this.add([], 'XADD', key, id, ...fields);
  }

  /** An entry appended to a run's audit stream, chained to the stream's last (redis/audit-append.ts); its key undeclared, as for xadd. */
  appendAuditEntry(key: string, entry: string): this {
    return this.add([], AUDIT_APPEND_COMMAND, key, entry);
  }

  pexpire(key: string, milliseconds: number, ...options: string[]): this {
    return this.add([], 'PEXPIRE', key, milliseconds, ...options);
  }

  hset(key: string, ...fieldValues: string[]): this {
    return this.add([key], 'HSET', key, ...fieldValues);
  }

  hsetnx(key: string, field: string, value: string | number): this {
    return this.add([key], 'HSETNX', key, field, value);
  }

  sadd(key: string, ...members: string[]): this {
    for (let start = 0; start < members.length; start += MAX_KEYS_PER_WRITE) this.add([key], 'SADD', key, ...members.slice(start, start + MAX_KEYS_PER_WRITE));
    return this;
  }

  zadd(key: string, score: number, member: string): this {
    return this.add([key], 'ZADD', key, score, member);
  }

  zrem(key: string, ...members: string[]): this {
    return this.add([key], 'ZREM', key, ...members);
  }

  /** A Beads decayed add on `key`, with the words of the Beads store's script (`ADD_DECAYED_SCRIPT`) after its key. */
  addDecayed(key: string, words: readonly string[]): this {
    return this.add([key], ADD_DECAYED_COMMAND, key, ...words);
  }

  // Reads go undeclared too: a script's declared keys count as written (ACL key permissions), and
  // what a pass reads in its commit (a first_success round's members) is another party's record.
  get(key: string): this {
    return this.add([], 'GET', key);
  }

  /** How many writes are queued. */
  get size(): number {
    return this.writes.length;
  }

  /**
   * The keys to declare and the writes' words, for a script that runs them under a fence of its
   * own (JobFinisher): the keys go at KEYS[keyBase..], and with `returned` the return value's
   * word is left for the script's own copy.
   */
  scriptForm(keyBase: number, returned: boolean): { readonly keys: readonly string[]; readonly words: readonly string[] } {
    const words: string[] = [];
    for (const write of this.writes) {
      words.push(String(write.words.length), returned ? write.refs : write.refs.replaceAll('r', '.'));
      write.words.forEach((word, index) => {
        const ref = write.refs[index - 1];
        words.push(ref === 'k' ? String(keyBase + this.keys.get(word)!) : ref === 'r' && returned ? '' : word);
      });
    }
    return { keys: [...this.keys.keys()], words };
  }

  /**
   * Sends the writes, fenced by the lock `token` holds at `lockKey`; answers their replies in
   * order (a missing value as null).
   *
   * @throws LockLostError when the lock is not (or no longer) `token`'s; nothing was written.
   */
  async commit(redis: RedisClient, lockKey: string, token: string, jobId: string): Promise<unknown[]> {
    try {
      const { keys, words } = this.scriptForm(2, false);
      return (await runScript(redis, FENCED_COMMIT, [lockKey, ...keys], [token, ...words])) as unknown[];
    } catch (error) {
      throw lockLostOr(error, jobId);
    }
  }

  /** A write whose declared keys, if any, are its first words after the command. */
  private add(keys: readonly string[], ...words: (string | number)[]): this {
    return this.push(keys, 'k'.repeat(keys.length), words.map(String));
  }

  private push(keys: readonly string[], refs: string, words: readonly string[]): this {
    for (const key of keys) if (!this.keys.has(key)) this.keys.set(key, this.keys.size);
    this.writes.push({ words, refs });
    return this;
  }
}

interface Write {
  readonly words: readonly string[];
  /** What each word after the command stands for (see runWritesLua); trailing literals are left out. */
  readonly refs: string;
}
