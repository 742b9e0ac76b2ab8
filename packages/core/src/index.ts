/**
 * Tierflow's pure policy: aggregation strategies and partial-success rules, the confidence
 * cascade check, the inline-versus-reference artifact rule, retry and backoff maths, the
 * delegation direction guard, and learning from history (decayed statistics per specialist,
 * calibration, the routing bandit, revise-or-stop). No I/O, no clock, no hidden randomness.
 *
 * ```ts
 * import { aggregate, artifactFor, backoffDelay, cascadeCheck, resolveRetryOptions, shouldRetry, toAggregatedOutcome } from '@tierflow/core';
 *
 * // A Dispatcher's aggregate step, once its children have settled (in completion order):
 * const result = aggregate('all_success', children);
 * if (result.status === 'needs_clarification') askUp(result.questions);
 * report({ status: result.status, confidence: result.confidence, summary: result.summary, detail: toAggregatedOutcome(result) });
 *
 * // Before relying on upstream work:
 * if (cascadeCheck(upstream.confidence).action === 'reject_and_escalate') escalate();
 *
 * // Large content goes to Beads, small content inline:
 * const { artifact, store } = artifactFor({ artifact_type: 'code', content, ref: `beads:execution/outputs/${id}` });
 * if (store) await beads.set(store.ref, store.content);
 *
 * // Retrying a transient failure:
 * const retry = resolveRetryOptions({ attempts: 5 });
 * if (shouldRetry(error, attemptsMade, retry)) later(backoffDelay(attemptsMade, retry, Math.random));
 *
 * // Learning from history (a DecayedSums per task type × specialist, kept by the Monitor):
 * history = addToSums(history, historyIncrements(record), now, halfLifeMs);
 * const stats = specialistStats(history, now);
 * const { confidence } = calibrateConfidence(reported, stats);
 * const decision = chooseRoute({ taskType, candidates, mode: 'learned', objective: DEFAULT_ROUTING_OBJECTIVE, exploration: 0.2, random: Math.random });
 * ```
 */
export { aggregate } from './aggregate.js';
export { AGGREGATE_ERROR_TYPE, aggregateErrorType } from './aggregate-error-type.js';
export type { Aggregation } from './aggregate.js';
export { AGGREGATION_SUMMARY, toAggregatedOutcome } from './aggregated-outcome.js';
export { errorDetailOf, questionsOf, summarize } from './aggregate-report.js';
export { checkBoundary, targetParty } from './boundaries.js';
export { wildcardMatches } from './wildcard.js';
export type { Boundaries, BoundaryVerdict } from './boundaries.js';
export type { ReportFacts } from './aggregate-report.js';
export { CHILD_CLASS_OF, CHILD_CLASSES, childName, classifyChild, countChildren, countedChildren, isRecoverableFailure } from './child-result.js';
export type { AggregationCounts, ChildClass, ChildResult } from './child-result.js';
export { isConfidence, meanConfidence } from './mean-confidence.js';
export { isMajority, strategyVerdict } from './strategy-verdict.js';
export type { Majority, StrategyVerdict } from './strategy-verdict.js';

export { CASCADE_ACTIONS, CASCADE_SEVERITY, cascadeCheck, DEFAULT_CASCADE_THRESHOLDS, resolveCascadeThresholds } from './confidence-cascade.js';
export type { CascadeAction, CascadeDecision, CascadeThresholds } from './confidence-cascade.js';
export { gateUpstream, gravestCheck } from './cascade-gate.js';
export { aggregateMetadata } from './handoff-metadata.js';
export type { AggregatedMetadata } from './handoff-metadata.js';
export { cascadeThresholdsFor, isolatesTone } from './handoff-flags.js';
export type { GatedOutcome, UpstreamOutcome } from './cascade-gate.js';

export { checkOutput, compileOutputSchema, describeMismatch, OUTPUT_SCHEMA_CACHE_SIZE } from './output-schema.js';
export type { OutputCheck } from './output-schema.js';

export { artifactFor, CONTENT_PLACEMENTS, placeContent } from './artifact-placement.js';
export type { ArtifactForInput, ContentPlacement, PlacedArtifact } from './artifact-placement.js';

export { backoffDelay, DEFAULT_RETRY_OPTIONS, rawBackoffDelay, resolveRetryOptions, shouldRetry } from './backoff.js';
export type { RetryOptions } from './backoff.js';

export { checkDelegation } from './delegation-guard.js';

export { addUsage, callUsage, isZeroUsage, readUsage, roundCost, sumUsage, usageOf, withoutUsage, ZERO_USAGE } from './usage.js';
export type { ModelPrice } from './usage.js';
export { BUDGET_LIMITS, budgetExceededReason, budgetLeft, microUsd, recordVerdict, refusalWaits, reservationVerdict, withReservation, withSettlement } from './budget.js';
export type { BudgetCount, BudgetLimit, BudgetStanding, BudgetVerdict } from './budget.js';
export { callCharge, callEstimate, CHARS_PER_TOKEN, DEFAULT_RESERVED_OUTPUT_TOKENS, estimateTokens } from './call-estimate.js';
export type { CallCharge, CallEnd } from './call-estimate.js';
export { parseRetryAfter } from './retry-after.js';
export type { DelegationCheck } from './delegation-guard.js';

export { childTally, NO_SUBTASKS, readTally, tallyBelow, tallySentence } from './subtask-tally.js';
export type { SubtaskTally, TalliedAnswer } from './subtask-tally.js';

// Learning from history: decayed sums, per-specialist statistics, calibration, the routing bandit, revise-or-stop.
export { addToSums, decayedSumsSchema, DECAYED_SUMS_FIELD_CAP, decayFactor, decaySums } from './learning/decayed-sums.js';
export type { DecayedSums } from './learning/decayed-sums.js';
export { LEARNING_DROPPED_KEY, LEARNING_METADATA_KEY, LEARNING_RECORDS_CAP, learningMetadata, learningRecordSchema, learningRecordsOf, routingRecordSchema } from './learning/learning-record.js';
export type { LearningRecord, RoutingRecord } from './learning/learning-record.js';
export { CALIBRATION_BINS, calibrationBinOf, EMPTY_SPECIALIST_STATS, historyIncrements, specialistStats } from './learning/specialist-stats.js';
export type { CalibrationBin, SpecialistStats } from './learning/specialist-stats.js';
export { calibrateConfidence, DEFAULT_CALIBRATION } from './learning/calibration.js';
export type { CalibrationOptions } from './learning/calibration.js';
export { ROUTING_MODES, ROUTING_REASONS, routingModeSchema, routingReasonSchema } from './learning/routing-modes.js';
export type { RoutingMode, RoutingReason } from './learning/routing-modes.js';
export { chooseRoute, DEFAULT_ROUTING_OBJECTIVE, routingDecisionSchema, routingObjectiveSchema, routingRecordOf, ROUTING_WARM_UP_SAMPLES, routingScoreSchema } from './learning/routing-choice.js';
export type { ChooseRouteInput, RouteCandidate, RoutingDecision, RoutingObjective, RoutingScore } from './learning/routing-choice.js';
export { sampleBeta, seededRandom } from './learning/sampling.js';
export { CHANGE_MIN_RECENT_SAMPLES, CHANGE_Z, detectChange, foldSpecialistHistory, RECENT_HALF_LIFE_DIVISOR, recentHalfLifeMs } from './learning/change-detection.js';
export type { HistoryChange, SpecialistFold } from './learning/change-detection.js';
export { DEFAULT_REVISION_MIN_SAMPLES, DEFAULT_REVISION_MIN_SUCCESS_RATE, revisionIncrements, revisionOutlook, revisionStats } from './learning/revision-outlook.js';
export type { RevisionOutlookInput, RevisionStats } from './learning/revision-outlook.js';
export { reviseOrStop } from './revise-or-stop.js';
export type { ReviseOrStopInput } from './revise-or-stop.js';

// For convenience: the error type that resolve*Options and artifactFor throw.
export { isTierflowError, TierflowError } from '@tierflow/protocol';
