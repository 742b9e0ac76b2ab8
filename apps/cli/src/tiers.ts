import { startArchitectWorker } from '@tierflow/architect';
import { startDispatcherWorker } from '@tierflow/dispatcher';
import { startFleetWorker } from '@tierflow/fleet';
import { startMonitorWorker } from '@tierflow/monitor';
import type { RuntimeOptions, TierSlug, TierWorker } from '@tierflow/runtime';

export const TIER_SLUGS: readonly TierSlug[] = ['monitor', 'architect', 'dispatcher', 'fleet'];

export function isTierSlug(value: string): value is TierSlug {
  return (TIER_SLUGS as readonly string[]).includes(value);
}

type Starter = (options: { runtime: RuntimeOptions; concurrency?: number }) => Promise<TierWorker>;

/** Each tier's app, started in this process. */
export const START_TIER: Readonly<Record<TierSlug, Starter>> = {
  monitor: startMonitorWorker,
  architect: startArchitectWorker,
  dispatcher: startDispatcherWorker,
  fleet: startFleetWorker,
};
