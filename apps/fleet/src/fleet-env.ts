import { readTierflowEnv, tierflowEnvSchema } from '@tierflow/runtime/admin';
import { runtimeOptionsFromEnv, type RuntimeOptions } from '@tierflow/runtime';

/** The Fleet process's own environment variables, as the runtime's one schema of the environment defines them. */
export const fleetEnvSchema = tierflowEnvSchema.pick({ FLEET_CONCURRENCY: true, FLEET_OUTPUT_TTL_MS: true, TIERFLOW_SIM_MAX_CONCURRENT: true, TIERFLOW_TRACK_COMPLETIONS: true });

/** What the Fleet process is started with, read from the environment. */
export interface FleetProcessOptions {
  readonly runtime: RuntimeOptions;
  readonly concurrency: number;
  readonly outputTtlMs?: number;
  readonly simMaxConcurrent?: number;
  readonly trackCompletions: boolean;
}

/**
 * Reads the Fleet's options from the environment: the runtime's variables, FLEET_CONCURRENCY,
 * FLEET_OUTPUT_TTL_MS, TIERFLOW_SIM_MAX_CONCURRENT and TIERFLOW_TRACK_COMPLETIONS. Empty
 * variables count as unset.
 *
 * @throws ConfigError (code `invalid_config`) naming each bad variable.
 */
export function fleetOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): FleetProcessOptions {
  const runtime = runtimeOptionsFromEnv(env);
  const { FLEET_CONCURRENCY, FLEET_OUTPUT_TTL_MS, TIERFLOW_SIM_MAX_CONCURRENT, TIERFLOW_TRACK_COMPLETIONS } = readTierflowEnv(env);
  return {
    runtime,
    concurrency: FLEET_CONCURRENCY,
    ...(FLEET_OUTPUT_TTL_MS === undefined ? {} : { outputTtlMs: FLEET_OUTPUT_TTL_MS }),
    ...(TIERFLOW_SIM_MAX_CONCURRENT === undefined ? {} : { simMaxConcurrent: TIERFLOW_SIM_MAX_CONCURRENT }),
    trackCompletions: TIERFLOW_TRACK_COMPLETIONS,
  };
}
