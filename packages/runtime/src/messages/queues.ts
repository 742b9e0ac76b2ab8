import { TIER_SLUGS } from '@tierflow/protocol';

/** One queue per tier, named by the tier's slug. */
export const QUEUE_OF = TIER_SLUGS;

/**
 * BullMQ priority from a delegation's: 0 (critical) … 4 (backlog) become 1 … 5. Every Tierflow
 * job is prioritised, so the order holds among them (BullMQ runs unprioritised jobs first).
 */
export function bullPriority(priority: number): number {
  return priority + 1;
}
