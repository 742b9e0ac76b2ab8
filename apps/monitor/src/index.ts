/**
 * The Progress Monitor (tier 4): takes each root objective, hands it to the Architect, resets a
 * recoverable failure a bounded number of times (docs/protocol.md#escalation), and judges the
 * outcome against the bounds it has learned for the task type, flagging a surprise; it records
 * every run in `system/*` and `history/*`.
 *
 * ```ts
 * import { startMonitorWorker } from '@tierflow/monitor';
 * import { runtimeOptionsFromEnv } from '@tierflow/runtime';
 *
 * const worker = await startMonitorWorker({
 *   runtime: runtimeOptionsFromEnv(),
 *   maxResets: 1,
 *   surprise: { minSamples: 5, sigmas: 3 }, // flag outcomes beyond 3σ once 5 runs of the type are known
 * });
 * process.on('SIGTERM', () => void worker.close());
 * ```
 */
export { monitorHandler, startMonitorWorker } from './handler.js';
export type { MonitorWorkerOptions } from './handler.js';
export {
  DEFAULT_ARCHITECT_TIMEOUT_MS,
  DEFAULT_HISTORY_HALF_LIFE_MS,
  DEFAULT_MAX_RESETS,
  HISTORY_RUN_TTL_MS,
  DEFAULT_SURPRISE,
  monitorOptionsSchema,
  resolveMonitorOptions,
  surpriseOptionsSchema,
} from './options.js';
export type { MonitorOptionsInput, ResolvedMonitorOptions, SurpriseOptions } from './options.js';
