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
 *   fleetTimeoutMs: 30_000,
 * });
 * process.on('SIGTERM', () => void worker.close());
 * ```
 */
export { pinFor, registeredAgents, routeOf } from './agent-pins.js';
export { decideNext, needsReroute } from './decide-next.js';
export type { DispatchDecision } from './decide-next.js';
export { dependencyFailure, releaseDependents, startingSubtasks, upstreamFor } from './dependencies.js';
export type { Release, ReleaseInput } from './dependencies.js';
export { dispatchMemoSchema, initialMemo, recordRound } from './dispatch-memo.js';
export type { DispatchMemo, SubtaskResult, SubtaskState } from './dispatch-memo.js';
export { fleetDraft } from './fleet-draft.js';
export type { FleetDraftInput } from './fleet-draft.js';
export { dispatcherHandler, startDispatcherWorker } from './handler.js';
export type { DispatcherWorkerOptions } from './handler.js';
export { DEFAULT_FLEET_TIMEOUT_MS, DEFAULT_ROUTING, dispatcherOptionsSchema, FALLBACK_ROUTE, resolveDispatcherOptions } from './options.js';
export type { DispatcherOptionsInput, ResolvedDispatcherOptions } from './options.js';
export { DEFAULT_TASK_TYPE, planOf } from './plan-of.js';
export { dispatchReport, ERROR_TYPE_OF, errorFieldsOf } from './report.js';
export type { DispatchReportInput } from './report.js';
export { routeSubtask } from './route.js';
export type { Route } from './route.js';
export { routingKeys } from './routing-keys.js';
export { taskGraphOf } from './task-graph.js';
export type { TaskGraph, TaskNode, TaskNodeStatus } from './task-graph.js';
