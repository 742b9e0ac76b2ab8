import { createHmac, timingSafeEqual } from 'node:crypto';
import { isJsonObject, SIGNATURE_ALG, signingInput, type MessageSignature } from '@tierflow/protocol';
import type { SigningConfig, SigningKey } from './signing-keys.js';

/** The error_type of an outcome refused for its signature, and the prefix of such a dead letter's reason. */
export const SIGNATURE_INVALID = 'signature_invalid';

function mac(key: SigningKey, record: Readonly<Record<string, unknown>>): string {
  return createHmac('sha256', key.secret).update(signingInput(record), 'utf8').digest('hex');
}

/**
 * `record` (a message, a root objective) with a fresh signature by the current key, in place of
 * any it had; unchanged when `signing` is null. Sign the finished record: any change after
 * signing, even a default filled in, breaks the signature.
 */
export function signRecord<T extends object>(record: T, signing: SigningConfig | null | undefined): T {
  if (!signing) return record;
  const signature: MessageSignature = { key_id: signing.current.id, alg: SIGNATURE_ALG, value: mac(signing.current, record as Record<string, unknown>) };
  return { ...record, signature };
}

export type SignatureCheck = { readonly ok: true; readonly keyId: string } | { readonly ok: false; readonly reason: string };

/**
 * Checks the signature of a record exactly as received (before any parsing fills defaults): by
 * the current key or the previous one, compared in constant time.
 */
export function checkSignature(record: unknown, signing: SigningConfig): SignatureCheck {
  if (!isJsonObject(record)) return { ok: false, reason: 'not a JSON object, so not signed' };
  const signature = record.signature;
  if (signature === undefined || signature === null) {
    return { ok: false, reason: 'unsigned: this deployment signs its messages (TIERFLOW_SIGNING_KEY) and this one carries no signature' };
  }
  if (!isJsonObject(signature) || typeof signature.key_id !== 'string' || typeof signature.value !== 'string') {
    return { ok: false, reason: 'malformed signature: expected { key_id, alg, value }' };
  }
  if (signature.alg !== SIGNATURE_ALG) return { ok: false, reason: `signature algorithm ${JSON.stringify(signature.alg)} is not ${SIGNATURE_ALG}` };
  const key = [signing.current, signing.previous].find((candidate) => candidate?.id === signature.key_id);
  if (!key) {
    const known = [signing.current, signing.previous].flatMap((k) => (k ? [k.id] : [])).join(', ');
    return { ok: false, reason: `signed with unknown key "${signature.key_id}" (accepted here: ${known})` };
  }
  const expected = Buffer.from(mac(key, record), 'hex');
  const given = /^[0-9a-f]{64}$/.test(signature.value) ? Buffer.from(signature.value, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: `signature does not match: forged, or altered after signing (key "${key.id}")` };
  }
  return { ok: true, keyId: key.id };
}
