import { TierflowError } from '@tierflow/protocol';
import { runtimeOptionsFromEnv, type RuntimeOptions } from '@tierflow/runtime';
import { z } from 'zod';

const positiveInt = z.coerce.number().int().min(1);

/** The Fleet process's own environment variables, besides the runtime's REDIS_URL and TIERFLOW_PREFIX. */
export const fleetEnvSchema = z.object({
  /** Specialist runs this process handles at once. */
  FLEET_CONCURRENCY: positiveInt.default(8),
  /** Expiry of outputs and logs in Beads, in ms; the store's default when unset. */
  FLEET_OUTPUT_TTL_MS: positiveInt.optional(),
});

/** What the Fleet process is started with, read from the environment. */
export interface FleetProcessOptions {
  readonly runtime: RuntimeOptions;
  readonly concurrency: number;
  readonly outputTtlMs?: number;
}

/**
 * Reads the Fleet's options from the environment: REDIS_URL, TIERFLOW_PREFIX, FLEET_CONCURRENCY,
 * FLEET_OUTPUT_TTL_MS. Empty variables count as unset.
 *
 * @throws TierflowError (permanent, code `invalid_config`) naming each bad variable.
 */
export function fleetOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): FleetProcessOptions {
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = fleetEnvSchema.safeParse(set);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw TierflowError.permanent(`invalid Fleet environment: ${problems.join('; ')}`, { code: 'invalid_config' });
  }
  const { FLEET_CONCURRENCY, FLEET_OUTPUT_TTL_MS } = parsed.data;
  return {
    runtime: runtimeOptionsFromEnv(env),
    concurrency: FLEET_CONCURRENCY,
    ...(FLEET_OUTPUT_TTL_MS === undefined ? {} : { outputTtlMs: FLEET_OUTPUT_TTL_MS }),
  };
}
