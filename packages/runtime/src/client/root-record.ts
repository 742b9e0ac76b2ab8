import { z } from 'zod';
import { readStoredRecord } from '../redis/stored-record.js';

/**
 * The fields of a root's BullMQ job hash that tell whether it has finished and how: BullMQ sets
 * `finishedOn` only when a job ends for good (a retry leaves it unset), with `returnvalue` when
 * it completed and `failedReason` when it failed. `timestamp` is written when the job is added, so
 * an existing job always answers at least that. `data` (the root record) is read only when the
 * wait needs the objective's `timeout_ms`.
 */
export const ROOT_FIELDS = ['timestamp', 'finishedOn', 'returnvalue', 'failedReason'] as const;
export const ROOT_DATA_FIELD = 'data';

/** A root's job as a waiting client sees it. */
export type RootRecord =
  | { readonly state: 'missing' }
  /** `timeoutMs`: the objective's timeout_ms (null: none given or unreadable); undefined when `data` was not read. */
  | { readonly state: 'unfinished'; readonly timeoutMs?: number | null }
  | { readonly state: 'completed'; readonly returnvalue: string }
  | { readonly state: 'failed'; readonly reason: string }
  /** Not a job: the key holds something else, or the answer is not one HMGET gives. */
  | { readonly state: 'unreadable'; readonly problem: string }
  /** The lookup failed (no permission, a server error): nothing is known, ask again later. */
  | { readonly state: 'unknown'; readonly problem: string };

const hmgetSchema = z.array(z.string().nullable());
const rootDataSchema = z.object({ objective: z.object({ timeout_ms: z.number().int().positive().optional() }) });

/**
 * Reads one HMGET of {@link ROOT_FIELDS} (then `data` when `withData`), as a pipeline answers it:
 * `[error, reply]`. Never throws.
 */
export function rootRecordOf(answer: readonly [Error | null, unknown] | undefined, withData: boolean): RootRecord {
  if (!answer) return { state: 'unknown', problem: 'no answer' };
  const [error, reply] = answer;
  if (error) return /^WRONGTYPE/.test(error.message) ? { state: 'unreadable', problem: error.message } : { state: 'unknown', problem: error.message };
  const parsed = hmgetSchema.safeParse(reply);
  const expected = ROOT_FIELDS.length + (withData ? 1 : 0);
  if (!parsed.success || parsed.data.length !== expected) return { state: 'unreadable', problem: 'not an answer to HMGET' };
  // An existing job answers its `timestamp` at least; nothing at all means no such key.
  if (parsed.data.every((value) => value === null)) return { state: 'missing' };
  const [, finishedOn = null, returnvalue = null, failedReason = null, data = null] = parsed.data;
  if (finishedOn !== null) {
    return returnvalue !== null ? { state: 'completed', returnvalue } : { state: 'failed', reason: failedReason ?? 'no reason recorded' };
  }
  return withData ? { state: 'unfinished', timeoutMs: objectiveTimeoutOf(data) } : { state: 'unfinished' };
}

/** The objective's timeout_ms from a root record's JSON text; null when it has none or cannot be read. */
export function objectiveTimeoutOf(data: string | null): number | null {
  if (data === null) return null;
  const read = readStoredRecord(data, rootDataSchema, { what: 'a root record' });
  return read.ok ? (read.value.objective.timeout_ms ?? null) : null;
}
