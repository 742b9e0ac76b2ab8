import { checkBoundary, targetParty, wildcardMatches, type Boundaries } from '@tierflow/core';
import {
  attestationFor,
  checkAttestation,
  isJsonObject,
  TIER_SLUGS,
  type AttestationRefusal,
  type DelegationMessage,
  type DelegationPayload,
  type OutcomeMessage,
  type TierName,
} from '@tierflow/protocol';
import type { Governance } from '../config/options.js';

/**
 * The runtime's side of governance attestations (docs/protocol.md#attestations): the sender
 * attests each delegation and outcome before it is signed; the receiver checks the claims
 * against its own settings. Pure.
 */

/** What a tier attests with: its boundaries and its own identity (the runtime's options). */
export interface Attesting {
  readonly boundaries: Boundaries | null;
  readonly governance: Pick<Governance, 'require' | 'agent'>;
}

/** The handoff a message belongs to, as boundaries name its parties: the delegation's hop, down. */
interface Hop {
  readonly from: TierName;
  readonly to: TierName;
  /** The delegation of the hop: it names the specialist a Fleet hop goes to. */
  readonly request: Pick<DelegationPayload, 'specialist_hint' | 'target_agent'> | null;
}

/** Whether `boundaries` bound the hop, and if so whether they allow it; the sender and the receiver decide it alike. */
export function hopVerdict(boundaries: Boundaries | null, hop: Hop): 'allowed' | 'forbidden' | 'unbounded' {
  const from = TIER_SLUGS[hop.from];
  if (boundaries === null || !Object.keys(boundaries).some((key) => wildcardMatches(key, from))) return 'unbounded';
  const to = targetParty(TIER_SLUGS[hop.to], hop.request?.specialist_hint ?? hop.request?.target_agent?.agent_id);
  return checkBoundary(boundaries, from, to).ok ? 'allowed' : 'forbidden';
}

/** A delegation with its attestation, made before it is signed so that the signature covers it. */
export function attestedDelegation(message: DelegationMessage, rootId: string, signed: boolean, attesting: Attesting | null): DelegationMessage {
  const verdict = hopVerdict(attesting?.boundaries ?? null, { from: message.source_tier, to: message.target_tier, request: message.payload });
  const { attestation: _old, signature: _signature, ...unsigned } = message;
  return {
    ...unsigned,
    attestation: attestationFor(unsigned, { rootId, signed, agent: attesting?.governance.agent ?? null, boundaries: verdict === 'unbounded' ? 'unbounded' : 'checked' }),
  };
}

/**
 * An outcome with its attestation, before it is signed: it vouches for the hop of `answering`,
 * the delegation it answers (null for the root's, which answers the client), from the tier above.
 */
export function attestedOutcome(message: OutcomeMessage, rootId: string, answering: DelegationPayload | null, signed: boolean, attesting: Attesting | null): OutcomeMessage {
  const verdict = answering === null ? 'unbounded' : hopVerdict(attesting?.boundaries ?? null, { from: message.target_tier, to: message.source_tier, request: answering });
  const { attestation: _old, signature: _signature, ...unsigned } = message;
  return {
    ...unsigned,
    attestation: attestationFor(unsigned, { rootId, signed, agent: attesting?.governance.agent ?? null, boundaries: verdict === 'unbounded' ? 'unbounded' : 'checked', answering }),
  };
}

/** Why a tier refuses a delegation it received for its attestation; null when it takes it. */
export function delegationAttestationRefusal(message: DelegationMessage, rootId: string, attesting: Attesting): AttestationRefusal | null {
  const boundaries = hopVerdict(attesting.boundaries, { from: message.source_tier, to: message.target_tier, request: message.payload });
  return checkAttestation(message, { rootId, require: attesting.governance.require, boundaries });
}

/** Why a parent refuses a child's outcome for its attestation (`request`: the delegation it answers); null when it reads it. */
export function outcomeAttestationRefusal(message: OutcomeMessage, rootId: string, request: DelegationPayload, attesting: Attesting): AttestationRefusal | null {
  const boundaries = hopVerdict(attesting.boundaries, { from: message.target_tier, to: message.source_tier, request });
  return checkAttestation(message, { rootId, require: attesting.governance.require, boundaries, answering: isJsonObject(request) ? request : null });
}
