import { fastSafeParse, formatValidationError, isCancellation, messageIdSchema, messageSignatureSchema, validate, type CancellationMessage } from '@tierflow/protocol';
import { z } from 'zod';
import { preview } from './control-notice.js';
import { checkSignature, signRecord } from '../security/signing.js';
import type { Party } from '../security/party.js';
import type { Signer, SigningConfig } from '../security/signing-keys.js';

/**
 * The control path's durable records: a cancellation mark (a CancellationMessage) and a
 * watchdog's timeout record, signed like messages when the deployment signs, by the party whose
 * key space holds it. Anyone who can write Redis can write one, so each is read as input: a record
 * of the wrong shape, for another message, or (when signing) one that does not verify or that
 * another party signed is ignored, and the reader logs why.
 */
export const timeoutRecordSchema = z.looseObject({
  kind: z.literal('timeout'),
  message_id: messageIdSchema,
  /** When the watchdog gave up (ms since the epoch). */
  at: z.number(),
  signature: messageSignatureSchema.optional(),
});
export type TimeoutRecord = z.infer<typeof timeoutRecordSchema>;

export function timeoutRecord(messageId: string, at: number, signer: Signer | null): string {
  return JSON.stringify(signRecord({ kind: 'timeout', message_id: messageId, at }, signer));
}

/** A first_success round's members, as its parent wrote them. */
export const raceRecordSchema = z.looseObject({
  kind: z.literal('race'),
  members: z.array(messageIdSchema).min(1),
  signature: messageSignatureSchema.optional(),
});

export function raceRecord(members: readonly string[], signer: Signer | null): string {
  return JSON.stringify(signRecord({ kind: 'race', members: [...members] }, signer));
}

/** A round's members, or null for a record of any other shape (or, when signing, one `parent` did not sign). */
export function readRace(text: string, signing: SigningConfig | null, parent: Party): string[] | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = fastSafeParse(raceRecordSchema, value);
  if (!parsed.success) return null;
  return verified(text, parsed.data, signing, parent).ok ? parsed.data.members : null;
}

export type RecordRead<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** A stored cancellation mark for `messageId`, written by `writer`, or why it is ignored; never throws. */
export function readCancelMark(text: string, messageId: string, signing: SigningConfig | null, writer: Party): RecordRead<CancellationMessage> {
  const result = validate(text);
  if (!result.ok) return { ok: false, reason: `not a cancellation message: ${result.errors.map(formatValidationError).join('; ')}` };
  const mark = result.value;
  if (!isCancellation(mark)) return { ok: false, reason: `message ${mark.id} is not a cancellation` };
  if (mark.payload.target_message_id !== messageId) return { ok: false, reason: `it cancels ${mark.payload.target_message_id}, not ${messageId}` };
  return verified(text, mark, signing, writer);
}

/** A stored timeout record for `messageId`, written by `writer`, or why it is ignored; never throws. */
export function readTimeoutRecord(text: string, messageId: string, signing: SigningConfig | null, writer: Party): RecordRead<TimeoutRecord> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: `not JSON: ${preview(text)}` };
  }
  const parsed = fastSafeParse(timeoutRecordSchema, value);
  if (!parsed.success) return { ok: false, reason: `not a timeout record: ${preview(text)}` };
  if (parsed.data.message_id !== messageId) return { ok: false, reason: `it is for ${parsed.data.message_id}, not ${messageId}` };
  return verified(text, parsed.data, signing, writer);
}

function verified<T>(text: string, record: T, signing: SigningConfig | null, writer: Party): RecordRead<T> {
  if (!signing) return { ok: true, value: record };
  // The signature covers the record as stored, before any defaults were filled in.
  const check = checkSignature(JSON.parse(text), signing, writer);
  return check.ok ? { ok: true, value: record } : { ok: false, reason: check.reason };
}
