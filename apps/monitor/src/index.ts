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
export { architectDraft, SOLVE } from './architect-draft.js';
export { boundsSchema, METRICS, metricStatsSchema, standardDeviation, updateBounds } from './bounds.js';
export type { Bounds, Metric, MetricStats, Sample } from './bounds.js';
export { decideMonitor } from './decide.js';
export type { MonitorDecision } from './decide.js';
export { monitorHandler, startMonitorWorker } from './handler.js';
export type { MonitorWorkerOptions } from './handler.js';
export { monitorMemoSchema } from './monitor-memo.js';
export type { MonitorMemo } from './monitor-memo.js';
export { DEFAULT_ARCHITECT_TIMEOUT_MS, DEFAULT_MAX_RESETS, DEFAULT_SURPRISE, monitorOptionsSchema, resolveMonitorOptions, surpriseOptionsSchema } from './options.js';
export type { MonitorOptionsInput, ResolvedMonitorOptions, SurpriseOptions } from './options.js';
export { DEFAULT_BOUNDS_TASK_TYPE, runRecords, strategyOf, taskTypeOf } from './records.js';
export type { HistoryRecord, RunFacts, RunRecord } from './records.js';
export { evaluatedReport } from './report.js';
export type { Evaluation, MonitorOutcome } from './report.js';
export { checkSurprise, effectiveSigma, SIGMA_FLOOR } from './surprise.js';
export type { SurpriseVerdict } from './surprise.js';
export { boundsKey, keySegment, runKeys } from './system-keys.js';
