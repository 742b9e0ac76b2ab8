import type { Span } from '@opentelemetry/api';
import type { RedisClient } from '@tierflow/beads';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { TierLogger } from '../policy/handler.js';
import { progressDue, progressRecord, progressText } from './progress.js';
import { progressUpdateSchema, type ProgressUpdate } from '../policy/progress-update.js';

/** Where one job's progress goes. */
export interface ProgressTarget {
  readonly redis: RedisClient;
  /** The run's progress hash of this tier (control key `progress`). */
  readonly key: string;
  readonly rootId: string;
  readonly messageId: string;
  /** How long the record is kept: the life of the run. */
  readonly ttlMs: number;
  readonly span: Span;
  readonly audit: AuditTrail;
  readonly log: TierLogger;
  readonly now: () => number;
  readonly intervalMs: number;
}

/**
 * A job's `context.progress`: throttled (see progressDue), then kept in the run's progress hash,
 * added to the hop's span as an event and to the audit trail. It never throws and never waits: a
 * bad update is logged and dropped, a failed write logged.
 */
export function progressReporter(target: ProgressTarget): (update: ProgressUpdate) => void {
  let lastWriteAt: number | null = null;
  return (update) => {
    const parsed = progressUpdateSchema.safeParse(update);
    if (!parsed.success) {
      target.log.warn('dropped a progress update', { id: target.messageId, problem: parsed.error.issues[0]?.message ?? 'invalid' });
      return;
    }
    const now = target.now();
    if (!progressDue(lastWriteAt, now, target.intervalMs)) return;
    lastWriteAt = now;
    const record = progressRecord(parsed.data, now);
    target.span.addEvent('progress', {
      ...(record.percent === null ? {} : { 'tierflow.progress.percent': record.percent }),
      ...(record.note === null ? {} : { 'tierflow.progress.note': record.note }),
    });
    target.audit.progress(target.rootId, target.messageId, progressText(record));
    const failed = (error: unknown): void => target.log.warn('progress write failed', { id: target.messageId, error: String(error) });
    target.redis.multi().hset(target.key, target.messageId, JSON.stringify(record)).pexpire(target.key, target.ttlMs).exec().catch(failed);
  };
}
