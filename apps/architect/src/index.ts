/**
 * The Abstract Architect (tier 3): records the objective and its constraints in Beads, delegates
 * it to the Dispatcher, and revises the strategy when the result falls short
 * (docs/protocol.md#escalation) by re-delegating only the subtasks that did not succeed, at most
 * `maxRevisions` times. Clarification requests go up unchanged.
 *
 * ```ts
 * import { startArchitectWorker } from '@tierflow/architect';
 * import { runtimeOptionsFromEnv } from '@tierflow/runtime';
 *
 * const worker = await startArchitectWorker({ runtime: runtimeOptionsFromEnv(), maxRevisions: 1, dispatcherTimeoutMs: 60_000 });
 * process.on('SIGTERM', () => void worker.close());
 * ```
 */
export { architectMemoSchema, initialMemo, keptChildSchema } from './architect-memo.js';
export type { ArchitectMemo, KeptChild } from './architect-memo.js';
export { childOutcomeEntrySchema, childOutcomesOf } from './child-outcomes.js';
export type { ChildOutcomeEntry } from './child-outcomes.js';
export { callsForRevision, decideArchitect, mapToPlan } from './decide.js';
export type { ArchitectDecision, DispatcherVerdict } from './decide.js';
export { DECOMPOSE_AND_SOLVE, dispatcherDraft } from './dispatcher-draft.js';
export type { DispatcherDraftInput } from './dispatcher-draft.js';
export { architectHandler, startArchitectWorker } from './handler.js';
export type { ArchitectWorkerOptions } from './handler.js';
export { architectOptionsSchema, DEFAULT_DISPATCHER_TIMEOUT_MS, DEFAULT_MAX_REVISIONS, resolveArchitectOptions } from './options.js';
export type { ArchitectOptionsInput, ResolvedArchitectOptions } from './options.js';
export { readPlan, revisedPlan } from './read-plan.js';
export { ERROR_TYPE_OF, forwardReport, reaggregatedReport } from './report.js';
export type { ReaggregationInput } from './report.js';
export { taskKeys } from './task-keys.js';
export type { TaskKeys } from './task-keys.js';
