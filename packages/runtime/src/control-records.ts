import { checkSignature, signRecord } from './signing.js';
import type { SigningConfig } from './signing-keys.js';

/**
 * The control path's durable records, signed like messages when the deployment signs: a
 * cancellation mark (a CancellationMessage) and a watchdog's timeout record. Without signing,
 * any record counts, as before; with it, a record that does not verify is ignored, so a process
 * that can write Redis but holds no key cannot stop work.
 */
export function timeoutRecord(messageId: string, at: number, signing: SigningConfig | null): string {
  return JSON.stringify(signRecord({ kind: 'timeout', message_id: messageId, at }, signing));
}

export type RecordCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Whether a stored control record for `messageId` may be acted on. */
export function checkControlRecord(text: string, messageId: string, signing: SigningConfig | null): RecordCheck {
  if (!signing) return { ok: true };
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON, so not signed' };
  }
  const check = checkSignature(record, signing);
  if (!check.ok) return check;
  const target = record as { message_id?: unknown; payload?: { target_message_id?: unknown } };
  const names = target.message_id ?? target.payload?.target_message_id;
  return names === messageId ? { ok: true } : { ok: false, reason: `signed for ${String(names)}, not for ${messageId}` };
}
