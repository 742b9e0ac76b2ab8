import { startArchitectWorker } from '@tierflow/architect';
import { startDispatcherWorker } from '@tierflow/dispatcher';
import { startFleetWorker } from '@tierflow/fleet';
import { startMonitorWorker } from '@tierflow/monitor';
import type { RuntimeOptions, TierflowEnv, TierSlug, TierWorker } from '@tierflow/runtime';

export const TIER_SLUGS: readonly TierSlug[] = ['monitor', 'architect', 'dispatcher', 'fleet'];

export function isTierSlug(value: string): value is TierSlug {
  return (TIER_SLUGS as readonly string[]).includes(value);
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
