import { BeadsStore } from '@tierflow/beads';
import { AgentBlocks, agentBlocksPrefix, cellPrefixes, connect } from '@tierflow/runtime/admin';
import { consoleLogger, TierWorker, type PolicyWorkerOptions, type RuntimeOptions } from '@tierflow/runtime';
import { resolveNotifyOptions } from '@tierflow/runtime/policy';
import { blockingAgents } from './agent-blocking.js';
import { publishAgents } from './agent-registry.js';
import { fleetHandler } from './fleet-handler.js';
import { defaultRegistry, type SpecialistRegistry } from './registry.js';

/** The Fleet's recommended `timeout_ms` (30 s: docs/protocol.md#timeouts), for senders that set none. */
export const FLEET_DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Options of {@link startFleetWorker}: the host's, as every tier's (`concurrency` counts specialist
 * runs), and the Fleet's own.
 */
export interface StartFleetOptions extends PolicyWorkerOptions {
  /** The specialists to serve; {@link defaultRegistry} (just `sim`) when left out. */
  readonly registry?: SpecialistRegistry;
  /** Expiry of outputs and logs written to Beads, in ms. */
  readonly outputTtlMs?: number;
  /** Caps the runs at once of the default registry's `sim`, to drill throttling (TIERFLOW_SIM_MAX_CONCURRENT). */
  readonly simMaxConcurrent?: number;
  /** Counts completions per message, for drills (TIERFLOW_TRACK_COMPLETIONS=1). */
  readonly trackCompletions?: boolean;
}

/** Starts a Fleet worker on the `fleet` queue and resolves once it takes jobs; `close()` it to stop. */
export async function startFleetWorker(options: StartFleetOptions): Promise<TierWorker> {
  const registry = options.registry ?? defaultRegistry(options.simMaxConcurrent === undefined ? {} : { simMaxConcurrent: options.simMaxConcurrent });
  const log = options.log ?? consoleLogger('fleet');
  await publishRegistry(options.runtime, registry);
  // Blocked agents (docs/operations.md#governed-handoffs) are the deployment's, kept in its first cell: one connection reads and writes them.
  const blocksRedis = connect(options.runtime);
  const policy = fleetHandler(registry, {
    ...(options.outputTtlMs === undefined ? {} : { outputTtlMs: options.outputTtlMs }),
    trackCompletions: options.trackCompletions ?? false,
  });
  const worker = await TierWorker.start({
    handler: blockingAgents(policy, new AgentBlocks(blocksRedis, agentBlocksPrefix(options.runtime)), registry),
    runtime: options.runtime,
    log,
    specialists: registry.names(),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.cells === undefined ? {} : { cells: options.cells }),
    ...(options.metricsUrl === undefined ? {} : { metricsUrl: options.metricsUrl }),
    ...(options.notify === undefined ? {} : { notify: resolveNotifyOptions(options.notify) }),
  }).catch((error: unknown) => {
    blocksRedis.disconnect();
    throw error;
  });
  log.info('fleet worker started', { specialists: registry.names(), prefix: options.runtime.prefix });
  // The blocks' connection goes with the worker.
  const close = worker.close.bind(worker);
  worker.close = async () => {
    try {
      await close();
    } finally {
      blocksRedis.disconnect();
    }
  };
  return worker;
}

/** Before taking work: the Dispatcher pins delegations to the agents published here. */
async function publishRegistry(runtime: RuntimeOptions, registry: SpecialistRegistry): Promise<void> {
  const redis = connect(runtime);
  try {
    // Each cell's Dispatchers read them from their own cell.
    for (const prefix of cellPrefixes(runtime)) await publishAgents(new BeadsStore(redis, { tier: 'SPECIALIZED_FLEET', prefix }), registry, Date.now());
  } finally {
    redis.disconnect();
  }
}
