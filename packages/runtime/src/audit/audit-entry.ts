import { isJsonObject, type JsonObject } from '@tierflow/protocol';
import { z } from 'zod';
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from '@tierflow/beads';
import { FencedBatch } from '../redis/fenced-batch.js';
import { APPEND_AUDIT, AUDIT_ENTRY_FIELD, AUDIT_HASH_FIELD } from '../redis/audit-append.js';
import { runScript } from '../redis/scripts.js';

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
  /** A word on what it was: a delegation's task type, an outcome's error type, a cancellation's reason, a decision in a line. */
  readonly detail: string;
  /** A decision's own record, as its policy gave it (a routing decision with its scores); a handoff's governance attestation (`attestation`); a finding's or refusal's particulars. */
  readonly data?: JsonObject;
}

/**
 * `progress` is a note a job made while it worked (docs/operations.md#progress), not a message;
 * `question` is a question the run put to a person, `answer` the answer (docs/protocol.md#clarification);
 * `decision` is a choice a tier's policy made for a round (the specialist a subtask was routed to, and why);
 * `gap` says how many entries a tier could not append, and why (Redis refused the write);
 * `tool` is a tool call an LLM specialist made, or was refused (docs/extending.md#tools);
 * `refusal` is a job a tier refused for good and kept as a dead letter (docs/operations.md#recovery-and-the-dead-letter-queue);
 * `security` is a security finding in an outcome a tier sent, such as an agent hash mismatch (docs/protocol.md#target-agents).
 */
export const AUDIT_KINDS = ['delegation', 'outcome', 'cancellation', 'progress', 'question', 'answer', 'blocked', 'unblocked', 'decision', 'gap', 'tool', 'refusal', 'security'] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];
export type AuditDirection = 'sent' | 'received';

/** The party outside the tiers: who submits roots, waits for their outcomes, and cancels as an operator. */
export const AUDIT_CLIENT = 'client';

/** An entry with its place in the stream, and its link in the run's hash chain (absent from entries written before chaining). */
export interface AuditRecord extends AuditEntry {
  readonly stream_id: string;
  readonly hash?: string;
}

const text = z.string().catch('');
// Not a number is read as NaN, not as "none", so whoever checks the entry sees it is out of shape.
const count = z
  .unknown()
  .optional()
  .transform((value) => (value === undefined || value === null ? null : typeof value === 'number' ? value : Number.NaN));

/** An entry as read back: what it does not know is ignored, what is missing is left empty, a number that is not one is NaN. */
const storedEntrySchema = z.object({
  time: text,
  from: text,
  to: text,
  kind: text,
  direction: text,
  id: text,
  correlation_id: text,
  status: text,
  confidence: count,
  by: text,
  attempt: count,
  detail: text,
  // A decision's record; anything else in its place is dropped, not an error.
  data: z
    .unknown()
    .optional()
    .transform((value) => (isJsonObject(value) ? value : undefined)),
});

/**
 * An entry back from XRANGE's flat field list, in either form: the JSON field written now (with
 * its chain hash), or a field per value as entries were written before (numbers as text). Never throws.
 */
export function parseAuditFields(streamId: string, fields: readonly string[]): AuditRecord {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) pairs.push([fields[i]!, fields[i + 1]!]);
  // Own properties whatever the names (a field called __proto__ included).
  const values: Record<string, unknown> = Object.fromEntries(pairs);
  const json = values[AUDIT_ENTRY_FIELD];
  const entry = typeof json === 'string' ? jsonObject(json) : legacyValues(values);
  const { data, ...read } = storedEntrySchema.parse(entry);
  const hash = typeof json === 'string' ? values[AUDIT_HASH_FIELD] : undefined;
  return {
    stream_id: streamId,
    ...read,
    kind: read.kind as AuditKind,
    direction: read.direction as AuditDirection,
    ...(data === undefined ? {} : { data }),
    ...(typeof hash === 'string' ? { hash } : {}),
  };
}

function jsonObject(textValue: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(textValue);
    return isJsonObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** A field per value: the two numbers were written as text, empty for none. */
function legacyValues(values: Record<string, unknown>): Record<string, unknown> {
  const number = (value: unknown): number | null => (typeof value === 'string' && value !== '' ? Number(value) : null);
  return { ...values, confidence: number(values.confidence), attempt: number(values.attempt) };
}

/** What audit entries are queued on: a pass's lock-fenced batch, or an ioredis MULTI or pipeline. */
export type AuditWrites = FencedBatch | ChainableCommander;

/**
 * Queues the entries, each chained to the trail's last (redis/audit-append.ts), then one
 * PEXPIRE: a run's trail lives `ttlMs` past its last entry. `ttlMs` null leaves the TTL alone
 * (the sender's append set it a moment before); `onlyIfNoTtl` (PEXPIRE NX) sets one on a stream
 * that has none and otherwise leaves the deployment's own, for writers that do not know it.
 */
export function appendAudit(writes: AuditWrites, key: string, entries: readonly AuditEntry[], ttlMs: number | null, onlyIfNoTtl = false): void {
  if (entries.length === 0) return;
  if (writes instanceof FencedBatch) {
    for (const entry of entries) writes.appendAuditEntry(key, JSON.stringify(entry));
    if (ttlMs === null) return;
    if (onlyIfNoTtl) writes.pexpire(key, ttlMs, 'NX');
    else writes.pexpire(key, ttlMs);
    return;
  }
  writes.eval(APPEND_AUDIT.lua, 1, key, ...appendArgs(entries, ttlMs, onlyIfNoTtl, false));
}

/** Appends the entries now, in one script call: {@link appendAudit}'s choices, and `onlyToExisting` to add nothing to a trail that is not there. */
export async function appendAuditNow(redis: RedisClient, key: string, entries: readonly AuditEntry[], ttlMs: number | null, onlyIfNoTtl = false, onlyToExisting = false): Promise<void> {
  if (entries.length === 0) return;
  await runScript(redis, APPEND_AUDIT, [key], appendArgs(entries, ttlMs, onlyIfNoTtl, onlyToExisting));
}

function appendArgs(entries: readonly AuditEntry[], ttlMs: number | null, onlyIfNoTtl: boolean, onlyToExisting: boolean): string[] {
  return [ttlMs === null ? '' : String(ttlMs), onlyIfNoTtl ? 'NX' : '', onlyToExisting ? 'exists' : '', ...entries.map((entry) => JSON.stringify(entry))];
}
