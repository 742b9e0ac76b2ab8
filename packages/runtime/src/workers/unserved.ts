import { TIER_SLUGS, type TierName } from '@tierflow/protocol';
import type { RunNode } from '../audit/run-tree-merge.js';

/** The tiers with a job of the run waiting in their queue for a worker to take it, root first. Pure. */
export function waitingTiers(tree: RunNode): TierName[] {
  const tiers: TierName[] = [];
  const visit = (node: RunNode): void => {
    // `queued`: in its tier's queue, waiting for a worker to take it (docs/statuses.md).
    if (node.source !== 'outcome' && node.status === 'queued' && !tiers.includes(node.tier)) tiers.push(node.tier);
    node.children.forEach(visit);
  };
  visit(tree);
  return tiers;
}

/** Of `waiting`, the tiers no live worker (from the heartbeats) serves. Pure. */
export function unservedTiers(waiting: readonly TierName[], workers: readonly { readonly tier: string }[]): TierName[] {
  return waiting.filter((tier) => !workers.some((worker) => worker.tier === tier));
}

/** `no monitor worker is running: …`, the line a view prints for a tier nothing serves. */
export function unservedNotice(tier: TierName): string {
  const slug = TIER_SLUGS[tier];
  return `no ${slug} worker is running: the run waits in the ${slug} queue until one starts (tierflow up, or tierflow worker ${slug})`;
}
