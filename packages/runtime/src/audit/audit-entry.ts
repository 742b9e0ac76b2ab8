import type { RedisWrites } from '../redis/fenced-batch.js';

/**
 * One line of a run's audit trail: a message a tier sent or received. Kept in a Redis stream per
 * run, `<prefix>:audit:<root id>`, appended to and never rewritten by the tiers (their Redis users
 * may add to it, not delete from it); the stream's own ids give the order.
 */
export interface AuditEntry {
  /** ISO 8601, by the clock of the process that appended it. */
  readonly time: string;
  /** A tier's wire name, or `client` for whoever is outside the tiers (the root's submitter, an operator). */
  readonly from: string;
  readonly to: string;
  readonly kind: AuditKind;
  readonly direction: AuditDirection;
  /** The message id. */
  readonly id: string;
  /** The message it answers or acts on; empty when none. */
  readonly correlation_id: string;
  /** An outcome's status; empty for delegations and cancellations. */
  readonly status: string;
  /** An outcome's confidence; null for delegations and cancellations. */
  readonly confidence: number | null;
  /** Who appended it: a tier's wire name, or `client`. */
  readonly by: string;
  /** A delivery's attempt number, for delegations received; null otherwise. */
  readonly attempt: number | null;
  /** A word on what it was: a delegation's task type, an outcome's error type, a cancellation's reason. */
  readonly detail: string;
}

/**
 * `progress` is a note a job made while it worked (docs/operations.md#progress), not a message;
 * `question` is a question the run put to a person, `answer` the answer (docs/protocol.md#clarification).
 */
export const AUDIT_KINDS = ['delegation', 'outcome', 'cancellation', 'progress', 'question', 'answer'] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];
export type AuditDirection = 'sent' | 'received';

/** The party outside the tiers: who submits roots, waits for their outcomes, and cancels as an operator. */
export const AUDIT_CLIENT = 'client';

/** Thirty days: long enough to answer for a run after the fact, short enough that the streams do not pile up. */
export const DEFAULT_AUDIT_TTL_MS = 30 * 24 * 3600_000;

export function auditKey(prefix: string, rootId: string): string {
  return `${prefix}:audit:${rootId}`;
}

/** An entry with its place in the stream. */
export interface AuditRecord extends AuditEntry {
  readonly stream_id: string;
}

const FIELDS = ['time', 'from', 'to', 'kind', 'direction', 'id', 'correlation_id', 'status', 'confidence', 'by', 'attempt', 'detail'] as const;

/** The stream fields of an entry, as XADD takes them: flat, strings, absent values empty. */
export function auditFields(entry: AuditEntry): string[] {
  // A plain loop: flatMap's array per field showed in the workers' profiles (22 entries a root).
  const fields: string[] = [];
  for (const field of FIELDS) {
    const value = entry[field];
    fields.push(field, value === null ? '' : String(value));
  }
  return fields;
}

/** An entry back from XRANGE's flat field list; fields it does not know are ignored, missing ones left empty. */
export function parseAuditFields(streamId: string, fields: readonly string[]): AuditRecord {
  const values = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) values.set(fields[i]!, fields[i + 1]!);
  const text = (field: string): string => values.get(field) ?? '';
  const number = (field: string): number | null => (text(field) === '' ? null : Number(text(field)));
  return {
    stream_id: streamId,
    time: text('time'),
    from: text('from'),
    to: text('to'),
    kind: text('kind') as AuditKind,
    direction: text('direction') as AuditDirection,
    id: text('id'),
    correlation_id: text('correlation_id'),
    status: text('status'),
    confidence: number('confidence'),
    by: text('by'),
    attempt: number('attempt'),
    detail: text('detail'),
  };
}

/**
 * Queues the entries on a pipeline or MULTI, then one PEXPIRE: a run's trail lives `ttlMs` past
 * its last entry. `ttlMs` null leaves the TTL alone (the sender's append set it a moment
 * before); `onlyIfNoTtl` (PEXPIRE NX) sets one on a stream that has none and otherwise leaves
 * the deployment's own, for writers that do not know it.
 */
export function appendAudit(pipeline: RedisWrites, key: string, entries: readonly AuditEntry[], ttlMs: number | null, onlyIfNoTtl = false): void {
  if (entries.length === 0) return;
  for (const entry of entries) pipeline.xadd(key, '*', ...auditFields(entry));
  if (ttlMs === null) return;
  if (onlyIfNoTtl) pipeline.pexpire(key, ttlMs, 'NX');
  else pipeline.pexpire(key, ttlMs);
}
