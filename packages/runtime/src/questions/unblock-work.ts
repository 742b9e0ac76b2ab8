import { MAX_CLARIFICATION_CHARS, TierflowError, type Blocker } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { appendAuditNow, AUDIT_CLIENT, type AuditEntry } from '../audit/audit-entry.js';
import { auditKey, controlKeys } from '../redis/keys.js';
import type { Signer, SigningConfig } from '../security/signing-keys.js';
import { readBlockedRun, readUnblocks, unblockRecord } from './blocked-records.js';
import { runScript, type RedisScript } from '../redis/scripts.js';

/**
 * Records the lifting of blockers of a blocked run, all or none; each is set only if its field
 * still holds what the client read there (nothing, or a record the root would ignore).
 *   KEYS[1]  the run's unblocks hash (written by clients): blocker id → unblock record
 *   ARGV[1]  the hash's TTL in ms
 *   ARGV[2…] blocker id, unblock record, what the client read in its field ('' for nothing), …
 * Returns { 'already_unblocked', id } | { 'ok' }.
 */
const UNBLOCK_WORK: RedisScript = {
  lua: `
-- Every blocker is checked before any is written.
for i = 2, #ARGV, 3 do
  local current = redis.call('HGET', KEYS[1], ARGV[i])
  if (current or '') ~= ARGV[i + 2] then return { 'already_unblocked', ARGV[i] } end
end
for i = 2, #ARGV, 3 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return { 'ok' }`,
};

export interface UnblockOptions {
  /** The blocked node (its delegation or outcome id) whose blockers to lift; every open one when left out or the root. */
  readonly node?: string;
  /** What changed, handed to the work sent again (`task_data.unblocked`). */
  readonly note?: string;
  /** Now, on the deployment's clock. */
  readonly now: number;
  readonly signer: Signer | null;
  readonly signing: SigningConfig | null;
  /** How long unblocks are kept: they must outlive the wait. */
  readonly ttlMs: number;
}

export interface UnblockReport {
  /** The ids of the blockers this lifted. */
  readonly unblocked: readonly string[];
  /** Blockers of the run's wait still on: the run goes on once none is. */
  readonly open: number;
}

/**
 * Lifts blockers of a run that waits on blocked work: those of one node (`node`: a node at or
 * above the work that reported them), or every one still on, with the same note. The records and
 * their audit entries are written; the caller wakes the run once none is left on.
 *
 * @throws TierflowError with code `invalid_argument` (a note over 4,000 characters), `not_blocked`
 *   (the run waits on no blocked work now) or `unknown_blocker` (`node` reported none of its open blockers).
 */
export async function unblockWork(redis: RedisClient, prefix: string, rootId: string, options: UnblockOptions): Promise<UnblockReport> {
  const note = (options.note ?? '').trim();
  if (note.length > MAX_CLARIFICATION_CHARS) throw TierflowError.permanent(`an unblock note must be at most ${MAX_CLARIFICATION_CHARS} characters`, { code: 'invalid_argument' });
  const keys = controlKeys(prefix);
  const [view, stored] = await Promise.all([redis.get(keys.blocked(rootId)), redis.hgetall(keys.unblocks(rootId))]);
  const run = readBlockedRun(view);
  if (!run) throw notBlocked(rootId);
  const lifted = readUnblocks(stored, options.signing, run.since).notes;
  const open = run.blockers.filter((blocker) => !lifted.has(blocker.id));
  const node = options.node === undefined || options.node === rootId ? null : options.node;
  const targets = node === null ? open : open.filter((blocker) => reportedUnder(blocker, node));
  if (targets.length === 0) throw node === null ? notBlocked(rootId) : unknownBlocker(rootId, node, open);
  const args = targets.flatMap((blocker) => [blocker.id, unblockRecord(blocker.id, note, options.now, options.signer), stored[blocker.id] ?? '']);
  const reply = await runScript(redis, UNBLOCK_WORK, [keys.unblocks(rootId)], [String(options.ttlMs), ...args]);
  if (Array.isArray(reply) && reply[0] === 'already_unblocked') throw TierflowError.permanent(`blocker ${String(reply[1])} of run ${rootId} is already lifted`, { code: 'not_blocked' });
  // Read again: unblocks made at the same time by others count, so one of us sees none left on.
  const after = readUnblocks(await redis.hgetall(keys.unblocks(rootId)), options.signing, run.since).notes;
  await appendAuditNow(
    redis,
    auditKey(prefix, rootId),
    targets.map((blocker) => unblockedEntry(blocker, note, options.now)),
    null,
  );
  return { unblocked: targets.map((blocker) => blocker.id), open: run.blockers.filter((blocker) => !after.has(blocker.id)).length };
}

/** Whether `blocker` was reported by `node` or by work below it (ids name their ancestors). */
export function reportedUnder(blocker: Pick<Blocker, 'id'>, node: string): boolean {
  const id = node.endsWith('.out') ? node.slice(0, -'.out'.length) : node;
  return blocker.id === `${id}.out` || blocker.id.startsWith(`${id}.`);
}

function unblockedEntry(blocker: Blocker, note: string, now: number): AuditEntry {
  return {
    time: new Date(now).toISOString(),
    from: AUDIT_CLIENT,
    to: 'PROGRESS_MONITOR',
    kind: 'unblocked',
    direction: 'sent',
    id: blocker.id,
    correlation_id: '',
    status: '',
    confidence: null,
    by: AUDIT_CLIENT,
    attempt: null,
    detail: note || blocker.blocker,
  };
}

function notBlocked(rootId: string): TierflowError {
  return TierflowError.permanent(`run ${rootId} is not blocked (unknown, finished, or already unblocked)`, { code: 'not_blocked' });
}

function unknownBlocker(rootId: string, node: string, open: readonly Blocker[]): TierflowError {
  const ids = open.map((blocker) => blocker.id).join(', ') || 'none';
  return TierflowError.permanent(`no open blocker of run ${rootId} was reported at or below ${node}; its open blockers: ${ids}`, { code: 'unknown_blocker' });
}
