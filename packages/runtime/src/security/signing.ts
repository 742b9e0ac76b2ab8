import { sign, verify } from 'node:crypto';
import { isJsonObject, SIGNATURE_ALG, signingInput, type MessageSignature } from '@tierflow/protocol';
import type { Party } from './party.js';
import type { Signer, SigningConfig } from './signing-keys.js';

/** The error_type of an outcome refused for its signature, and the prefix of such a dead letter's reason. */

/**
 * `record` (a message, a root objective, a control record) with a fresh signature by `signer`,
 * in place of any it had; unchanged when `signer` is null. Sign the finished record: any change
 * after signing, even a default filled in, breaks the signature.
 */
export function signRecord<T extends object>(record: T, signer: Signer | null | undefined): T {
  if (!signer) return record;
  const value = sign(null, Buffer.from(signingInput(record as Record<string, unknown>), 'utf8'), signer.key).toString('base64url');
  const signature: MessageSignature = { key_id: signer.keyId, alg: SIGNATURE_ALG, value };
  return { ...record, signature };
}

export type SignatureCheck = { readonly ok: true; readonly keyId: string; readonly party: Party } | { readonly ok: false; readonly reason: string };

/**
 * Checks the signature of a record exactly as received (before any parsing fills defaults), and
 * that its signer is one of `from`: a valid signature by the wrong party (the Fleet's key on a
 * Dispatcher's outcome) is refused like a forged one.
 */
export function checkSignature(record: unknown, signing: SigningConfig, from: Party | readonly Party[]): SignatureCheck {
  const allowed: readonly Party[] = typeof from === 'string' ? [from] : from;
  if (!isJsonObject(record)) return { ok: false, reason: 'not a JSON object, so not signed' };
  const signature = record.signature;
  if (signature === undefined || signature === null) {
    return { ok: false, reason: `unsigned: this deployment signs (TIERFLOW_KEYS_DIR) and this record carries no signature; ${allowed.join(' or ')} must sign it` };
  }
  if (!isJsonObject(signature) || typeof signature.key_id !== 'string' || typeof signature.value !== 'string') {
    return { ok: false, reason: 'malformed signature: expected { key_id, alg, value }' };
  }
  if (signature.alg !== SIGNATURE_ALG) return { ok: false, reason: `signature algorithm ${JSON.stringify(signature.alg).slice(0, 40)} is not ${SIGNATURE_ALG}` };
  const key = signing.keys.find(signature.key_id);
  const keyId = JSON.stringify(signature.key_id.slice(0, 64));
  if (!key) return { ok: false, reason: `signed with unknown key ${keyId} (not in the deployment's public keys)` };
  if (!allowed.includes(key.party)) {
    return { ok: false, reason: `signed by ${key.party} (key ${keyId}), but only ${allowed.join(' or ')} may sign this` };
  }
  const valid = verify(null, Buffer.from(signingInput(record), 'utf8'), key.key, Buffer.from(signature.value, 'base64url'));
  if (!valid) return { ok: false, reason: `signature does not match: forged, or altered after signing (key ${keyId} of ${key.party})` };
  return { ok: true, keyId: key.keyId, party: key.party };
}
