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
export { UNOBSERVED_CALL, UNRECORDED_CALLS } from './policy/model-calls.js';
export type { ModelAnswer, ModelCall, ModelCallObservation, ModelCallReply, ModelCalls, ModelCallStart, ModelCallWait, ModelRequest } from './policy/model-calls.js';
export { receiverMarginMs } from './deadlines/timing.js';
export { recordEscalations, recordRevision } from './observability/tier-metrics.js';
export { callWithRetry } from './policy/call-with-retry.js';
export type { CallWithRetryOptions } from './policy/call-with-retry.js';
export { buildOutcome } from './messages/messages.js';
export { planSchema, subtaskSchema } from './model/objective.js';
export { dependencyEdges, withDependencies } from './model/plan-dependencies.js';
export type { DependencyProblem, DependentPlan, DependentSubtask } from './model/plan-dependencies.js';
export { RUNTIME_RANGES } from './config/runtime-settings.js';
export { wholeNumber } from './config/env-values.js';
export type { WholeRange, WholeUnit } from './config/env-values.js';
export { passUp } from './policy/outcome-fields.js';
export { checkedPlan, planWith } from './policy/planner.js';
export { progressUpdateSchema } from './policy/progress-update.js';
export type { PlanRequest, Planner } from './policy/planner.js';
export type { OutcomeFields } from './policy/outcome-fields.js';
