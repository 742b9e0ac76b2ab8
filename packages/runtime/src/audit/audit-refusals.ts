import type { TierName } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { appendAuditNow, type AuditEntry } from './audit-entry.js';
import { auditKey } from '../redis/keys.js';
import { rootIdOf } from '../messages/ids.js';

/** What a refused job's entry says: the job, why it was refused, and the dead letter it is kept as. */
export interface Refusal {
  readonly jobId: string;
  readonly queue: string;
  readonly reason: string;
  readonly deadLetter: string;
  readonly time: string;
}

/** How much of a refusal's reason its entry keeps: the reason names what was wrong, and a hostile job makes it long. */
const REASON_CHARS = 500;

/**
 * A job a tier refused for good (kept in the dead-letter queue) on the trail of the run its id
 * names, so the run's record shows it and not only the queue. A job's id is whatever its sender
 * chose, so below the Monitor the entry goes only to a trail that exists: a refused job cannot
 * open trails for runs that never were. A refused root opens its own (its id is the run's).
 */
export async function refusalRecorded(redis: RedisClient, prefix: string, tier: TierName, refusal: Refusal, ttlMs: number): Promise<void> {
  const root = tier === 'PROGRESS_MONITOR';
  const reason = refusal.reason.length > REASON_CHARS ? `${refusal.reason.slice(0, REASON_CHARS)}…` : refusal.reason;
  const entry: AuditEntry = {
    time: refusal.time,
    from: tier,
    to: tier,
    kind: 'refusal',
    direction: 'received',
    id: refusal.jobId,
    correlation_id: '',
    status: 'rejected',
    confidence: null,
    by: tier,
    attempt: null,
    detail: reason,
    data: { queue: refusal.queue, dead_letter: refusal.deadLetter },
  };
  await appendAuditNow(redis, auditKey(prefix, rootIdOf(refusal.jobId)), [entry], root ? ttlMs : null, root, !root);
}
