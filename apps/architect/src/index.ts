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
export { architectHandler, startArchitectWorker } from './handler.js';
export type { ArchitectWorkerOptions } from './handler.js';
export { architectOptionsSchema, DEFAULT_DISPATCHER_TIMEOUT_MS, DEFAULT_MAX_REVISIONS, resolveArchitectOptions } from './options.js';
export type { ArchitectOptionsInput, ResolvedArchitectOptions } from './options.js';
