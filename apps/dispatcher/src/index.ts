/**
 * The Routing Dispatcher (tier 2): turns its delegation's plan into subtasks, routes each to a
 * specialist of the Fleet, sends a subtask that depends on others once they have succeeded, with
 * their work (docs/protocol.md#subtask-dependencies), re-routes a subtask whose specialist is
 * unavailable to the next alternate, and aggregates the results under the plan's strategy
 * (docs/protocol.md#aggregation-strategies).
 *
 * ```ts
 * import { startDispatcherWorker } from '@tierflow/dispatcher';
 * import { runtimeOptionsFromEnv } from '@tierflow/runtime';
 *
 * const worker = await startDispatcherWorker({
 *   runtime: runtimeOptionsFromEnv(),
 *   routing: { execute_code: ['python-lora', 'sim'], '*': ['sim'] }, // task_type → [primary, ...alternates]
 *   routingMode: 'learned', // choose among a task type's candidates by their measured results
 *   fleetTimeoutMs: 30_000,
 * });
 * process.on('SIGTERM', () => void worker.close());
 * ```
 */
export { dispatcherHandler, startDispatcherWorker } from './handler.js';
export type { DispatcherWorkerOptions } from './handler.js';
export {
  DEFAULT_EXPLORATION,
  DEFAULT_FLEET_TIMEOUT_MS,
  DEFAULT_OBJECTIVE_WEIGHT,
  DEFAULT_ROUTING,
  dispatcherOptionsSchema,
  explorationSchema,
  FALLBACK_ROUTE,
  resolveDispatcherOptions,
  routingModeOptionSchema,
  routingObjectiveOf,
  routingObjectiveOptionSchema,
} from './options.js';
export type { DispatcherOptionsInput, ResolvedDispatcherOptions, RoutingObjectiveOption } from './options.js';
