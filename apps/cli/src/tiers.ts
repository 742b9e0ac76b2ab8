import { TIER_SLUGS, tierOfSlug, type TierSlug } from '@tierflow/protocol';
import { consoleLogger, type NotifyOptionsInput, type RuntimeOptions, type TierWorker } from '@tierflow/runtime';
import { type TierflowEnv } from '@tierflow/runtime/admin';
import type { LoadedConfig } from './config/config-file.js';
import { discoveredSpecialists, type TierSetup } from './config/tier-setup.js';

/** The tiers a deployment runs, from the Monitor down. */
export const ALL_TIERS: readonly TierSlug[] = Object.values(TIER_SLUGS);

export function isTierSlug(value: string): value is TierSlug {
  return tierOfSlug(value) !== null;
}

/** What a tier is started with: the runtime's options, the environment's settings, and the project's configuration. */
export interface TierStart {
  readonly options: { readonly runtime: RuntimeOptions; readonly concurrency?: number; readonly cells?: readonly number[]; readonly metricsUrl?: string | null };
  readonly env: TierflowEnv;
  readonly project: LoadedConfig;
  readonly setup: TierSetup;
}

type Starter = (start: TierStart) => Promise<TierWorker>;

/**
 * Each tier's app, started in this process, with what the environment says of it
 * ({@link readTierflowEnv}): the default timeout a tier gives the delegations it sends (Fleet 30 s,
 * Dispatcher 60 s, Architect 120 s: docs/protocol.md#timeouts), and the Fleet's drill settings;
 * and with what the project's configuration adds: planners, routes, specialists. Each app is
 * loaded as its tier starts, so a process loads only the one it runs.
 */
export const START_TIER: Readonly<Record<TierSlug, Starter>> = {
  monitor: async ({ options, env, setup }) => {
    const { startMonitorWorker } = await import('@tierflow/monitor');
    return startMonitorWorker({
      ...options,
      ...setup.monitor,
      ...notifyOf(setup),
      ...opt('architectTimeoutMs', env.TIERFLOW_ARCHITECT_TIMEOUT_MS),
      ...opt('historyHalfLifeMs', env.TIERFLOW_HISTORY_HALF_LIFE_MS),
    });
  },
  architect: async ({ options, env, setup }) => {
    const { startArchitectWorker } = await import('@tierflow/architect');
    return startArchitectWorker({ ...options, ...setup.architect, ...notifyOf(setup), ...opt('dispatcherTimeoutMs', env.TIERFLOW_DISPATCHER_TIMEOUT_MS) });
  },
  dispatcher: async ({ options, env, setup }) => {
    const { startDispatcherWorker } = await import('@tierflow/dispatcher');
    return startDispatcherWorker({ ...options, ...setup.dispatcher, ...notifyOf(setup), ...opt('fleetTimeoutMs', env.TIERFLOW_FLEET_TIMEOUT_MS) });
  },
  fleet: async ({ options, env, project, setup }) => {
    const { defaultRegistry, startFleetWorker } = await import('@tierflow/fleet');
    const registry = defaultRegistry(env.TIERFLOW_SIM_MAX_CONCURRENT === undefined ? {} : { simMaxConcurrent: env.TIERFLOW_SIM_MAX_CONCURRENT });
    for (const specialist of setup.specialists) registry.register(specialist);
    const log = consoleLogger('fleet');
    for (const specialist of await discoveredSpecialists(project.config, registry, log)) registry.register(specialist);
    return startFleetWorker({ ...options, ...notifyOf(setup), registry, log, trackCompletions: env.TIERFLOW_TRACK_COMPLETIONS });
  },
};

/** Every tier queues the webhook events it sees (docs/operations.md#webhooks); the Monitor also delivers them. */
function notifyOf(setup: TierSetup): { notify?: NotifyOptionsInput } {
  return setup.notify === undefined ? {} : { notify: setup.notify };
}

function opt<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Partial<Record<K, number>>);
}
