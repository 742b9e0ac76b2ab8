import { ERROR_TYPES, TIER_SLUGS, tierBelow, type AgentIdentity, type DelegationPayload, type TierName } from '@tierflow/protocol';
import type { Governance } from '../config/options.js';

/**
 * Pins between tiers (docs/operations.md#governed-handoffs): the Monitor and the Architect pin
 * what they send the tier below to the identity the deployment's lock file gives that tier, and
 * the receiver refuses a pin it does not run, as the Fleet refuses one for a specialist
 * (docs/protocol.md#target-agents). The Dispatcher's pins on Fleet work are its own. Pure.
 */

/** The identity `tier`'s delegations pin the tier below to; null when it pins none (the Fleet's work is pinned by the Dispatcher, per specialist). */
export function tierPinOf(tier: TierName, locked: ReadonlyMap<string, AgentIdentity>): AgentIdentity | null {
  const below = tierBelow(tier);
  if (below === null || below === 'SPECIALIZED_FLEET') return null;
  return locked.get(TIER_SLUGS[below]) ?? null;
}

/** A delegation pinned to `pin`, in place of any pin its draft carried for the tier; unchanged without one. */
export function pinnedTo<T extends { readonly target_agent?: AgentIdentity | undefined }>(request: T, pin: AgentIdentity | null): T {
  return pin === null ? request : { ...request, target_agent: pin };
}

/** Why a tier above the Fleet refuses a delegation: not recoverable, nothing run. */
export interface TierPinRefusal {
  readonly error_type: typeof ERROR_TYPES.unknownAgent | typeof ERROR_TYPES.agentHashMismatch;
  readonly detail: string;
}

const short = (hash: string): string => `${hash.slice(0, 12)}…`;

/**
 * Null when `tier` runs the agent the delegation pins, or it pins none; else why not: another
 * agent's id (`unknown_agent`), or another version or prompt hash (`agent_hash_mismatch`, a
 * security finding). A tier that names no identity of its own cannot tell, and takes the work
 * unless the deployment requires governance. The Fleet checks its own pins (per specialist).
 */
export function tierPinRefusal(tier: TierName, payload: Pick<DelegationPayload, 'target_agent'>, governance: Pick<Governance, 'agent' | 'require'>): TierPinRefusal | null {
  const pin = payload.target_agent;
  if (!pin || tier === 'SPECIALIZED_FLEET') return null;
  const own = governance.agent;
  if (own === null) {
    return governance.require
      ? { error_type: ERROR_TYPES.unknownAgent, detail: `the delegation pins ${pin.agent_id} ${pin.agent_version}, but ${TIER_SLUGS[tier]} names no agent identity of its own` }
      : null;
  }
  if (pin.agent_id !== own.agent_id) return { error_type: ERROR_TYPES.unknownAgent, detail: `the delegation is pinned to ${pin.agent_id}, but this tier is ${own.agent_id}` };
  if (pin.agent_version === own.agent_version && pin.prompt_hash === own.prompt_hash) return null;
  return {
    error_type: ERROR_TYPES.agentHashMismatch,
    detail:
      `the delegation expects ${pin.agent_id} ${pin.agent_version} with prompt hash ${short(pin.prompt_hash)}, ` +
      `but this tier runs ${own.agent_id} ${own.agent_version} with prompt hash ${short(own.prompt_hash)}`,
  };
}
