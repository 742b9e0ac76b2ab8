import type { TierName } from '@tierflow/protocol';

/** One queue per tier. */
export const QUEUE_OF: Readonly<Record<TierName, string>> = {
  PROGRESS_MONITOR: 'monitor',
  ABSTRACT_ARCHITECT: 'architect',
  ROUTING_DISPATCHER: 'dispatcher',
  SPECIALIZED_FLEET: 'fleet',
};

export const TIER_OF_QUEUE: Readonly<Record<string, TierName>> = Object.fromEntries(
  Object.entries(QUEUE_OF).map(([tier, queue]) => [queue, tier as TierName]),
);

export type { TierSlug } from '@tierflow/beads';

export function tierFromSlug(slug: string): TierName | null {
  return Object.hasOwn(TIER_OF_QUEUE, slug) ? (TIER_OF_QUEUE[slug] ?? null) : null;
}

/**
 * BullMQ priority from a delegation's: 0 (critical) … 4 (backlog) become 1 … 5. Every Tierflow
 * job is prioritised, so the order holds among them (BullMQ runs unprioritised jobs first).
 */
export function bullPriority(priority: number): number {
  return priority + 1;
}
