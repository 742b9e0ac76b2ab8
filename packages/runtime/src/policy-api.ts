/**
 * `@tierflow/runtime/policy`: for authors of tier policies, planners, specialists and handoff
 * interceptors: the helpers the shipped tiers are written with, and the interceptor contract and
 * built-ins. The handler contract itself (`TierHandler`, `TierContext`, `Step`, …) is in
 * `@tierflow/runtime`.
 *
 * @module
 * @example
 * ```ts
 * import { passUp, planWith, type Planner } from '@tierflow/runtime/policy';
 * ```
 */
export { composeHandoffChain } from './handoff/chain.js';
export type { HandoffChain } from './handoff/chain.js';
export { interceptorProblems } from './policy/handoff.js';
export type { DelegationHandoff, Handoff, HandoffEnd, HandoffHook, HandoffNext, HandoffParty, OutcomeHandoff } from './policy/handoff.js';
export { EVIDENCE_GRADES_INTERCEPTOR, evidenceGrades } from './handoff/evidence-grades.js';
export type { EvidenceGradeOptions } from './handoff/evidence-grades.js';
export { crossesTaskTypes, factualContent, TONE_ISOLATION_INTERCEPTOR, toneIsolation } from './handoff/tone-isolation.js';
export type { Isolate, IsolationTarget, ToneIsolationOptions } from './handoff/tone-isolation.js';
export { UNMETERED } from './budget/usage-meter.js';
export { ModelCapacityWait, UNOBSERVED_CALL, UNRECORDED_CALLS } from './policy/model-calls.js';
export type {
  ModelAdmission,
  ModelAnswer,
  ModelCall,
  ModelCallObservation,
  ModelCallReply,
  ModelCalls,
  ModelCallStart,
  ModelCallWait,
  ModelLimit,
  ModelLimiter,
  ModelParking,
  ModelWaiter,
  ModelRequest,
  ModelToolCall,
} from './policy/model-calls.js';
export type { NodeToolCalls, RecordedToolResult, ToolAdmission, ToolCall, ToolCallEnd, ToolCallObservation, ToolCallStart } from './policy/tool-calls.js';
export { LIMIT_WINDOW_MS, modelLimitSchema, nextTry, PARK_AFTER_MS, reservedTokens, resolveModelLimit, roomWaitMs, slotLeaseMs } from './model-limits/model-limit.js';
export type { ModelLimitOptions } from './model-limits/model-limit.js';
export { receiverMarginMs } from './deadlines/timing.js';
export { recordEscalations, recordRevision } from './observability/tier-metrics.js';
export { callWithRetry } from './policy/call-with-retry.js';
export type { CallWithRetryOptions } from './policy/call-with-retry.js';
export { buildOutcome } from './messages/messages.js';
export { planSchema, subtaskSchema } from './model/objective.js';
export { DEFAULT_TASK_TYPE, wholeObjectivePlan } from './model/whole-objective.js';
export { DEFAULT_ROOT_TASK_TYPE, rootTaskType } from './model/root-task-type.js';
export { dependencyEdges, withDependencies } from './model/plan-dependencies.js';
export type { DependencyProblem, DependentPlan, DependentSubtask } from './model/plan-dependencies.js';
export { RUNTIME_RANGES } from './config/runtime-settings.js';
export { wholeNumber } from './config/env-values.js';
export type { WholeRange, WholeUnit } from './config/env-values.js';
export { passUp, withStopNote } from './policy/outcome-fields.js';
export { acceptanceCriteriaOf, checkedPlan, planWith, replanWith } from './policy/planner.js';
export { ACCEPTANCE_CRITERIA_KEY } from './model/objective.js';
export { progressUpdateSchema } from './policy/progress-update.js';
export type { PlanRequest, Planner, RevisionContext, RevisionFailure, RevisionSuccess } from './policy/planner.js';
export type { OutcomeFields } from './policy/outcome-fields.js';
export { BOTTLENECKS_KEY, modelHistoryKey, recentHistoryKey, revisionHistoryKey, routingAccuracyKey, specialistHistoryKey } from './learning/history-keys.js';
export { historyWrites, readHistoryWrites } from './learning/history-changes.js';
export type { HistoryChangeNote, HistoryWrites, TimedHistoryAdd } from './learning/history-changes.js';
export { readPairStats, readRevisionStats, readSpecialistStats } from './learning/specialist-history.js';
export { weighRevision } from './learning/weigh-revision.js';
export type { HistoryReadOptions } from './learning/history-values.js';
export { historyFold } from './learning/history-writes.js';
export type { HistoryAdd, HistoryFold, HistoryPair } from './learning/history-writes.js';
export { routingAccuracy, routingAccuracySchema, routingIncrements } from './learning/routing-accuracy.js';
export type { RoutingAccuracy } from './learning/routing-accuracy.js';
export { BOTTLENECK_MIN_SAMPLES, bottleneckSchema, bottlenecksSchema, rankBottlenecks } from './learning/bottlenecks.js';
export type { Bottleneck, Bottlenecks, PairStats } from './learning/bottlenecks.js';
export { blockedEvent, securityEvent } from './notify/webhook-events.js';
export type { BlockedDetail, SecurityDetail } from './notify/webhook-events.js';
export { RunNotices } from './notify/run-notices.js';
export { resolveNotifyOptions } from './notify/delivery-policy.js';
export { WebhookNotifier } from './notify/webhook-queue.js';
export type { WebhookEmitter } from './notify/webhook-queue.js';
