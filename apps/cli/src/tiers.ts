import { startArchitectWorker } from '@tierflow/architect';
import { startDispatcherWorker } from '@tierflow/dispatcher';
import { defaultRegistry, startFleetWorker } from '@tierflow/fleet';
import { startMonitorWorker } from '@tierflow/monitor';
import { TIER_SLUGS, tierOfSlug, type TierSlug } from '@tierflow/protocol';
import { consoleLogger, type RuntimeOptions, type TierflowEnv, type TierWorker } from '@tierflow/runtime';
import type { LoadedConfig } from './config/config-file.js';
import { discoveredSpecialists, type TierSetup } from './config/tier-setup.js';

/** The tiers a deployment runs, from the Monitor down. */
export const ALL_TIERS: readonly TierSlug[] = Object.values(TIER_SLUGS);

export function isTierSlug(value: string): value is TierSlug {
  return tierOfSlug(value) !== null;
}

/** What a tier is started with: the runtime's options, the environment's settings, and the project's configuration. */
export interface TierStart {
  readonly options: { readonly runtime: RuntimeOptions; readonly concurrency?: number; readonly cells?: readonly number[] };
  readonly env: TierflowEnv;
  readonly project: LoadedConfig;
  readonly setup: TierSetup;
}

type Starter = (start: TierStart) => Promise<TierWorker>;

/**
 * Each tier's app, started in this process, with what the environment says of it
 * ({@link readTierflowEnv}): the default timeout a tier gives the delegations it sends (Fleet 30 s,
 * Dispatcher 60 s, Architect 120 s: docs/protocol.md#timeouts), and the Fleet's drill settings;
 * and with what the project's configuration adds: planners, routes, specialists.
 */
export const START_TIER: Readonly<Record<TierSlug, Starter>> = {
  monitor: ({ options, env, setup }) => startMonitorWorker({ ...options, ...setup.monitor, ...opt('architectTimeoutMs', env.TIERFLOW_ARCHITECT_TIMEOUT_MS) }),
  architect: ({ options, env, setup }) => startArchitectWorker({ ...options, ...setup.architect, ...opt('dispatcherTimeoutMs', env.TIERFLOW_DISPATCHER_TIMEOUT_MS) }),
  dispatcher: ({ options, env, setup }) => startDispatcherWorker({ ...options, ...setup.dispatcher, ...opt('fleetTimeoutMs', env.TIERFLOW_FLEET_TIMEOUT_MS) }),
  fleet: async ({ options, env, project, setup }) => {
    const registry = defaultRegistry(env.TIERFLOW_SIM_MAX_CONCURRENT === undefined ? {} : { simMaxConcurrent: env.TIERFLOW_SIM_MAX_CONCURRENT });
    for (const specialist of setup.specialists) registry.register(specialist);
    const log = consoleLogger('fleet');
    for (const specialist of await discoveredSpecialists(project.config, registry, log)) registry.register(specialist);
    return startFleetWorker({ ...options, registry, log, trackCompletions: env.TIERFLOW_TRACK_COMPLETIONS });
  },
};

function opt<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Partial<Record<K, number>>);
}
