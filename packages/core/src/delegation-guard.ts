import { TIER_LEVELS, tierBelow, type TierName } from '@tierflow/protocol';

/** Whether a delegation may go from one tier to another; a refusal says why in plain words. */
export type DelegationCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const ALLOWED: DelegationCheck = { ok: true };

/**
 * The direction and depth guard (docs/protocol.md#nested-fan-out-guard): a tier
 * delegates only to the tier directly below it, and the Fleet, which executes, never delegates.
 * One step down at a time bounds every chain at three hops, Monitor to Fleet, so no separate
 * depth counter is needed.
 */
export function checkDelegation(from: TierName, to: TierName): DelegationCheck {
  const below = tierBelow(from);
  if (below === null) return { ok: false, reason: `a Fleet specialist cannot delegate (${from} → ${to})` };
  if (to === below) return ALLOWED;
  return { ok: false, reason: `${whyNot(from, to, below)} (${from} ${TIER_LEVELS[from]} → ${to} ${TIER_LEVELS[to]})` };
}

function whyNot(from: TierName, to: TierName, below: TierName): string {
  if (TIER_LEVELS[to] > TIER_LEVELS[from]) return 'a delegation must go down, not up';
  if (to === from) return 'a tier cannot delegate to itself';
  return `a delegation may not skip a tier: ${from} delegates only to ${below}`;
}
