import { z } from 'zod';

/**
 * The four tiers, by their names on the wire, with their levels (docs/protocol.md#tiers).
 * Higher levels delegate down; lower levels report up.
 */
export const TIER_LEVELS = {
  PROGRESS_MONITOR: 4,
  ABSTRACT_ARCHITECT: 3,
  ROUTING_DISPATCHER: 2,
  SPECIALIZED_FLEET: 1,
} as const;

export const TIER_NAMES = ['PROGRESS_MONITOR', 'ABSTRACT_ARCHITECT', 'ROUTING_DISPATCHER', 'SPECIALIZED_FLEET'] as const;

export const tierNameSchema = z.enum(TIER_NAMES).meta({
  description: 'A tier by its wire name: PROGRESS_MONITOR (4), ABSTRACT_ARCHITECT (3), ROUTING_DISPATCHER (2), SPECIALIZED_FLEET (1).',
});
export type TierName = z.infer<typeof tierNameSchema>;
export type TierLevel = (typeof TIER_LEVELS)[TierName];

export function tierLevel(tier: TierName): TierLevel {
  return TIER_LEVELS[tier];
}

/** The tier a given tier delegates to, or `null` for the Fleet, which executes and never delegates. */
export function tierBelow(tier: TierName): TierName | null {
  const below: Record<TierName, TierName | null> = {
    PROGRESS_MONITOR: 'ABSTRACT_ARCHITECT',
    ABSTRACT_ARCHITECT: 'ROUTING_DISPATCHER',
    ROUTING_DISPATCHER: 'SPECIALIZED_FLEET',
    SPECIALIZED_FLEET: null,
  };
  return below[tier];
}

/** The tier a given tier reports to, or `null` for the Monitor, which reports to the user. */
export function tierAbove(tier: TierName): TierName | null {
  const above: Record<TierName, TierName | null> = {
    PROGRESS_MONITOR: null,
    ABSTRACT_ARCHITECT: 'PROGRESS_MONITOR',
    ROUTING_DISPATCHER: 'ABSTRACT_ARCHITECT',
    SPECIALIZED_FLEET: 'ROUTING_DISPATCHER',
  };
  return above[tier];
}

/** Each tier's short name: its queue, its Redis user and signing party, its part of Beads keys (`system/seen-messages/fleet/<id>`). */
export const TIER_SLUGS = {
  PROGRESS_MONITOR: 'monitor',
  ABSTRACT_ARCHITECT: 'architect',
  ROUTING_DISPATCHER: 'dispatcher',
  SPECIALIZED_FLEET: 'fleet',
} as const satisfies Record<TierName, string>;
export type TierSlug = (typeof TIER_SLUGS)[TierName];

/** The tier a slug names (`fleet` → `SPECIALIZED_FLEET`), or `null` for anything else. */
export function tierOfSlug(slug: string): TierName | null {
  return TIER_NAMES.find((tier) => TIER_SLUGS[tier] === slug) ?? null;
}

export function isTierName(value: unknown): value is TierName {
  return typeof value === 'string' && Object.hasOwn(TIER_LEVELS, value);
}
