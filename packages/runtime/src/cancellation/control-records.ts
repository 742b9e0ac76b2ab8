import { formatValidationError, isCancellation, messageIdSchema, messageSignatureSchema, validate, type CancellationMessage } from '@tierflow/protocol';
import { z } from 'zod';
import { readStoredRecord, signatureProblem, type RecordRead } from '../redis/stored-record.js';
import { signRecord } from '../security/signing.js';
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
  const read = readStoredRecord(text, raceRecordSchema, { what: 'a race record', fast: true, signedBy: { signing, writer: parent } });
  return read.ok ? read.value.members : null;
}

/** A stored cancellation mark for `messageId`, written by `writer`, or why it is ignored; never throws. */
export function readCancelMark(text: string, messageId: string, signing: SigningConfig | null, writer: Party): RecordRead<CancellationMessage> {
  const result = validate(text);
  if (!result.ok) return { ok: false, reason: `not a cancellation message: ${result.errors.map(formatValidationError).join('; ')}` };
  const mark = result.value;
  if (!isCancellation(mark)) return { ok: false, reason: `message ${mark.id} is not a cancellation` };
  if (mark.payload.target_message_id !== messageId) return { ok: false, reason: `it cancels ${mark.payload.target_message_id}, not ${messageId}` };
  // The signature covers the mark as stored, before validation filled in any default.
  const problem = signing ? signatureProblem(JSON.parse(text), { signing, writer }) : null;
  return problem === null ? { ok: true, value: mark } : { ok: false, reason: problem };
}

/** A stored timeout record for `messageId`, written by `writer`, or why it is ignored; never throws. */
export function readTimeoutRecord(text: string, messageId: string, signing: SigningConfig | null, writer: Party): RecordRead<TimeoutRecord> {
  return readStoredRecord(text, timeoutRecordSchema, {
    what: 'a timeout record',
    fast: true,
    check: (record) => (record.message_id === messageId ? null : `it is for ${record.message_id}, not ${messageId}`),
    signedBy: { signing, writer },
  });
}
