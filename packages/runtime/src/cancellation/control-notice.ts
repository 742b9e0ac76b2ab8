import { messageIdSchema } from '@tierflow/protocol';
import { z } from 'zod';
import { readStoredRecord } from '../redis/stored-record.js';
import { roomNoticeSchema } from '../model-limits/room-waits.js';

/** Ids one notice may name: a cascade over a very large tree is sent in several notices. */
export const MAX_NOTICE_IDS = 10_000;
/** Longest reason a notice may carry, in characters. */
export const MAX_NOTICE_REASON = 2_000;

/**
 * The message every worker process hears on the control channel: abort these running handlers.
 * Anyone who may publish can send one, so it is parsed like any other input; a notice alone
 * never decides anything durable (the cancellation marks do), it only hurries a handler along.
 */
export const abortNoticeSchema = z.strictObject({
  kind: z.literal('cancel'),
  ids: z.array(messageIdSchema).max(MAX_NOTICE_IDS),
  reason: z.string().max(MAX_NOTICE_REASON),
  /** What the aborted handlers answer: `cancelled`, or `timeout` when a deadline ran out. */
  status: z.enum(['cancelled', 'timeout']),
  /** Why, as the error_type the aborted handlers answer with (e.g. budget_exceeded); the status when absent. */
  error_type: z.string().min(1).max(64).optional(),
});
export type AbortNotice = z.infer<typeof abortNoticeSchema>;

/** What the control channel carries: abort notices, and room notices for calls waiting on a model (model-limits/room-waits.ts). */
export const controlNoticeSchema = z.discriminatedUnion('kind', [abortNoticeSchema, roomNoticeSchema]);
export type ControlNotice = z.infer<typeof controlNoticeSchema>;

export type NoticeRead = { readonly ok: true; readonly notice: ControlNotice } | { readonly ok: false; readonly reason: string };

/** Reads a notice as published; never throws. */
export function readControlNotice(text: string): NoticeRead {
  const read = readStoredRecord(text, controlNoticeSchema, { what: 'a control notice' });
  return read.ok ? { ok: true, notice: read.value } : read;
}
