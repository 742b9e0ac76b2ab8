import { ERROR_TYPES, type OutcomeMessage, type TierName } from '@tierflow/protocol';
import { refusedChildOutcome } from '../messages/messages.js';
import { partyOf } from './party.js';
import { checkSignature } from './signing.js';
import type { SigningConfig } from './signing-keys.js';

/**
 * A child's outcome as its parent may read it in a deployment that signs: `outcome` when its
 * signature holds (checked on `raw`, the value as stored), it answers this very child, and its
 * timestamp is not beyond the clock window, signed by the child's own tier; otherwise a failed, unrecoverable outcome with
 * `error_type: 'signature_invalid'` and the reason. The answer's binding to its delegation stops
 * a genuine outcome of other work being passed off as this child's.
 */
export function verifiedOutcome(raw: unknown, outcome: OutcomeMessage, childTier: TierName, childId: string, now: number, signing: SigningConfig | null | undefined): OutcomeMessage {
  if (!signing) return outcome;
  const refusal = outcomeRefusal(raw, outcome, childTier, childId, signing, now);
  return refusal === null ? outcome : refusedChildOutcome(childTier, childId, ERROR_TYPES.signatureInvalid, refusal, now);
}

function outcomeRefusal(raw: unknown, outcome: OutcomeMessage, childTier: TierName, childId: string, signing: SigningConfig, now: number): string | null {
  const signature = checkSignature(raw, signing, partyOf(childTier));
  if (!signature.ok) return signature.reason;
  if (outcome.correlation_id !== childId) return `it answers ${outcome.correlation_id ?? 'nothing'}, not ${childId}`;
  const ahead = Date.parse(outcome.timestamp) - now;
  if (ahead > signing.maxClockSkewMs) return `its timestamp ${outcome.timestamp} is more than ${signing.maxClockSkewMs} ms ahead of this receiver's clock`;
  return null;
}
