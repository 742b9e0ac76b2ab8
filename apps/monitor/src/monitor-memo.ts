import { fastSafeParse, type JsonObject, TierflowError } from '@tierflow/protocol';
import { z } from 'zod';

/** What the Monitor carries between rounds (JSON, through Redis: parsed on the way back). */
export const monitorMemoSchema = z.object({
  resets: z.int().nonnegative(),
  /** When the Monitor took the root (ms since the epoch, from the context's clock): the run's duration starts here. */
  started_at: z.number(),
  /** When the current attempt was delegated: the duration sample the bounds learn from. */
  attempt_started_at: z.number(),
  /** The revisions the Architect made in attempts that were reset, for the record of revisions; absent while none. */
  revisions: z.int().positive().optional(),
});
export type MonitorMemo = z.infer<typeof monitorMemoSchema>;

/** @throws TierflowError (permanent, code `invalid_memo`) when the memo is not one this Monitor wrote. */
export function readMemo(memo: JsonObject): MonitorMemo {
  const parsed = fastSafeParse(monitorMemoSchema, memo);
  if (!parsed.success) throw TierflowError.permanent(`invalid monitor memo: ${parsed.error.message}`, { code: 'invalid_memo' });
  return parsed.data;
}
