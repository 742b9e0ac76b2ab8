import { startArchitectWorker } from '@tierflow/architect';
import { startDispatcherWorker } from '@tierflow/dispatcher';
import { startFleetWorker } from '@tierflow/fleet';
import { startMonitorWorker } from '@tierflow/monitor';
import { TIER_SLUGS, tierOfSlug, type TierSlug } from '@tierflow/protocol';
import type { RuntimeOptions, TierflowEnv, TierWorker } from '@tierflow/runtime';

/** The tiers a deployment runs, from the Monitor down. */
export const ALL_TIERS: readonly TierSlug[] = Object.values(TIER_SLUGS);

export function isTierSlug(value: string): value is TierSlug {
  return tierOfSlug(value) !== null;
}

type Starter = (options: { runtime: RuntimeOptions; concurrency?: number }, config: TierflowEnv) => Promise<TierWorker>;

/**
 * Each tier's app, started in this process, with what the environment says of it
 * ({@link readTierflowEnv}): the default timeout a tier gives the delegations it sends (Fleet 30 s,
 * Dispatcher 60 s, Architect 120 s: docs/protocol.md#timeouts), and the Fleet's drill settings.
 */
export const START_TIER: Readonly<Record<TierSlug, Starter>> = {
  monitor: (options, config) => startMonitorWorker({ ...options, ...opt('architectTimeoutMs', config.TIERFLOW_ARCHITECT_TIMEOUT_MS) }),
  architect: (options, config) => startArchitectWorker({ ...options, ...opt('dispatcherTimeoutMs', config.TIERFLOW_DISPATCHER_TIMEOUT_MS) }),
  dispatcher: (options, config) => startDispatcherWorker({ ...options, ...opt('fleetTimeoutMs', config.TIERFLOW_FLEET_TIMEOUT_MS) }),
  fleet: (options, config) => startFleetWorker({ ...options, ...opt('simMaxConcurrent', config.TIERFLOW_SIM_MAX_CONCURRENT), trackCompletions: config.TIERFLOW_TRACK_COMPLETIONS }),
};

function opt<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Partial<Record<K, number>>);
}
