import { TIER_NAMES, TIER_SLUGS, tierLevel, type TierName, type TierSlug } from '@tierflow/protocol';

/**
 * Who acts in a deployment: each tier, and the client (whoever enqueues roots and operates:
 * the `tierflow` commands, `TierflowClient`). Each party writes only its own control records,
 * and in a deployment that signs, signs with its own key.
 */
export type Party = TierSlug | 'client';

export const CLIENT: Party = 'client';

export function partyOf(tier: TierName): TierSlug {
  return TIER_SLUGS[tier];
}

/** The tiers from the Monitor down to `tier`, inclusive (TIER_NAMES runs from the top). */
function tiersDownTo(tier: TierName): TierName[] {
  return TIER_NAMES.filter((candidate) => tierLevel(candidate) >= tierLevel(tier));
}

/**
 * Who may cancel work at `tier`: the client, any tier above it (a parent stops its subtree), and
 * the tier itself (the winner of a first_success round stops its siblings, and nothing else).
 */
export function cancellersOf(tier: TierName): Party[] {
  return [CLIENT, ...tiersDownTo(tier).map(partyOf)];
}
