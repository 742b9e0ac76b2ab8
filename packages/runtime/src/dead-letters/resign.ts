import { isJsonObject, TIER_NAMES, TierflowError, type TierName } from '@tierflow/protocol';
import { CLIENT, partyOf, type Party } from '../security/party.js';
import { signRecord } from '../security/signing.js';
import type { SigningConfig } from '../security/signing-keys.js';

/**
 * A refused job's data made fit to send again by an operator: dated now (a message's
 * `timestamp`, a root's `submitted_at`, so it falls inside the clock window and its deadline
 * counts from now) and signed by the party its receiver expects: the client for a root, the
 * source tier for a delegation. The operator needs that party's private key in the key
 * directory. An id that was already accepted stays refused.
 *
 * @throws TierflowError (`invalid_config`) when the key directory lacks that party's private key,
 *   or (`invalid_input`) for data that names no sender.
 */
export function resignForReplay(data: unknown, signing: SigningConfig, now: number): unknown {
  if (!isJsonObject(data)) return data;
  const at = new Date(now).toISOString();
  const dated = data.kind === 'root' ? { ...data, submitted_at: at } : { ...data, timestamp: at, ...reattested(data.attestation, at) };
  return signRecord(dated, signing.keys.signer(senderOf(data)));
}

/** A message's attestation issued again with it, now signed (docs/protocol.md#attestations); nothing for one without. */
function reattested(attestation: unknown, at: string): { attestation?: Record<string, unknown> } {
  if (!isJsonObject(attestation)) return {};
  const source = isJsonObject(attestation.source) ? { ...attestation.source, verified_by: 'signature' } : attestation.source;
  return { attestation: { ...attestation, source, issued_at: at } };
}

function senderOf(data: Readonly<Record<string, unknown>>): Party {
  if (data.kind === 'root') return CLIENT;
  const source = data.source_tier;
  if (typeof source === 'string' && (TIER_NAMES as readonly string[]).includes(source)) return partyOf(source as TierName);
  throw TierflowError.permanent('cannot sign this letter: it is neither a root nor a message with a source_tier', { code: 'invalid_input' });
}
