import { startArchitectWorker } from '@tierflow/architect';
import { startDispatcherWorker } from '@tierflow/dispatcher';
import { startFleetWorker } from '@tierflow/fleet';
import { startMonitorWorker } from '@tierflow/monitor';
import type { RuntimeOptions, TierSlug, TierWorker } from '@tierflow/runtime';

export const TIER_SLUGS: readonly TierSlug[] = ['monitor', 'architect', 'dispatcher', 'fleet'];

export function isTierSlug(value: string): value is TierSlug {
  return (TIER_SLUGS as readonly string[]).includes(value);
}

type Starter = (options: { runtime: RuntimeOptions; concurrency?: number }, env: NodeJS.ProcessEnv) => Promise<TierWorker>;

/** A positive whole number of milliseconds from the environment, or nothing. */
function ms(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number of milliseconds, got ${JSON.stringify(text)}`);
  return value;
}

/**
 * Each tier's app, started in this process. The default timeout a tier gives the delegations it
 * sends (seed 000: Fleet 30 s, Dispatcher 60 s, Architect 120 s) can be set per deployment.
 */
export const START_TIER: Readonly<Record<TierSlug, Starter>> = {
  monitor: (options, env) => startMonitorWorker({ ...options, ...opt('architectTimeoutMs', ms(env, 'TIERFLOW_ARCHITECT_TIMEOUT_MS')) }),
  architect: (options, env) => startArchitectWorker({ ...options, ...opt('dispatcherTimeoutMs', ms(env, 'TIERFLOW_DISPATCHER_TIMEOUT_MS')) }),
  dispatcher: (options, env) => startDispatcherWorker({ ...options, ...opt('fleetTimeoutMs', ms(env, 'TIERFLOW_FLEET_TIMEOUT_MS')) }),
  fleet: (options) => startFleetWorker(options),
};

function opt<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Partial<Record<K, number>>);
}
