/**
 * The Tierflow tier runtime on BullMQ: each tier a worker on its own queue, delegations as child
 * jobs, outcomes as their results, retries with backoff, de-duplication by message id.
 *
 * ```ts
 * import { TierWorker, TierflowClient, runtimeOptionsFromEnv, type TierHandler } from '@tierflow/runtime';
 *
 * const echo: TierHandler = {
 *   tier: 'SPECIALIZED_FLEET',
 *   start: async ({ assignment }) => ({
 *     kind: 'outcome',
 *     outcome: { status: 'success', summary: `did: ${assignment.payload.objective}`, confidence: 0.9 },
 *   }),
 * };
 * const worker = await TierWorker.start({ handler: echo, runtime: runtimeOptionsFromEnv() });
 * ```
 */
export { InvalidJobError, readAssignment, ROOT_TASK_TYPE } from './messages/assignment.js';
export { AUDIT_CLIENT, AUDIT_KINDS } from './audit/audit-entry.js';
export { auditKey } from './redis/keys.js';
export { DEFAULT_AUDIT_TTL_MS } from './config/runtime-settings.js';
export type { AuditDirection, AuditEntry, AuditKind, AuditRecord } from './audit/audit-entry.js';
export { readAuditTrail } from './audit/audit-read.js';
export { composeHandoffChain, HandoffRefusedError } from './handoff/chain.js';
export type { HandoffChain } from './handoff/chain.js';
export { interceptorProblems } from './policy/handoff.js';
export type { DelegationHandoff, Handoff, HandoffEnd, HandoffHook, HandoffInterceptor, HandoffNext, HandoffParty, OutcomeHandoff } from './policy/handoff.js';
export { EVIDENCE_GRADES_INTERCEPTOR, evidenceGrades } from './handoff/evidence-grades.js';
export type { EvidenceGradeOptions } from './handoff/evidence-grades.js';
export { crossesTaskTypes, factualContent, TONE_ISOLATION_INTERCEPTOR, toneIsolation } from './handoff/tone-isolation.js';
export type { Isolate, IsolationTarget, ToneIsolationOptions } from './handoff/tone-isolation.js';
export { BudgetExceededError, UNMETERED, UsageMeters } from './budget/usage-meter.js';
export type { UsageMetersDeps } from './budget/usage-meter.js';
export type { UsageMeter, UsageReservation } from './policy/usage-meter.js';
export { reserveCall, runBudget, settleCall } from './budget/charge-usage.js';
export type { Charge, ChargeKeys } from './budget/charge-usage.js';
export { cancelMessage, releaseChildren } from './cancellation/cancel.js';
export type { CancelOptions, CancelReport } from './cancellation/cancel.js';
export { abortNoticeSchema, readAbortNotice } from './cancellation/control-notice.js';
export type { AbortNotice } from './cancellation/control-notice.js';
export { controlKeys, roundKeyOf } from './redis/keys.js';
export { cancellersOf, CLIENT, partyOf } from './security/party.js';
export type { Party } from './security/party.js';
export { RunningHandlers, isStopReason } from './cancellation/control-listener.js';
export type { RunningHandlersOptions, StopReason } from './cancellation/control-listener.js';
export { FINISHED_STATES, JobFinder } from './redis/job-finder.js';
export { TIMEOUT_GRACE_MS, deadlineOf, receiverMarginMs } from './deadlines/timing.js';
export { callWithRetry } from './policy/call-with-retry.js';
export type { CallWithRetryOptions } from './policy/call-with-retry.js';
export { BACKOFF_TYPE, childJobs, jobOptions } from './engine/child-jobs.js';
export { ObjectiveFileError, TierflowClient } from './client/client.js';
export type { RunTrace } from './client/client.js';
export { RootWaitError } from './client/wait-errors.js';
export type { RootWaitErrorCode } from './client/wait-errors.js';
export { DEFAULT_WAIT_LIMIT_MS, WAIT_GRACE_MS } from './client/wait-limit.js';
export { connect, connectReachable, redisWhere } from './redis/connection.js';
export { awaitReachable, redisFailureReason, RedisUnreachableError } from './redis/reach.js';
export { unservedNotice, unservedTiers, waitingTiers } from './workers/unserved.js';
export type { RedisTarget } from './redis/cluster.js';
export type { RedisClient } from '@tierflow/beads';
export { cellOf, cellOfMessage, cellOfRoot, cellPrefixes, cellsGlob, inCell, servedCells } from './cells/cells.js';
export { MAX_CELLS } from './config/runtime-settings.js';
export { DEAD_LETTER_QUEUE, DeadLetters } from './dead-letters/dead-letters.js';
export type { DeadLetter } from './dead-letters/dead-letters.js';
export { failureDraft, isPermanent, stoppedDraft } from './engine/failures.js';
export { withExpectedOutput } from './checks/expected-output.js';
export { checkUpstream, withCascadeCheck } from './checks/upstream-check.js';
export type { CheckedRound } from './checks/upstream-check.js';
export type { Assignment, DelegationDraft, OutcomeDraft, SettledChild, SettledRound, Step, TierContext, TierHandler, TierLogger } from './policy/handler.js';
export { childMessageId, newRootId, outcomeMessageId, rootIdOf } from './messages/ids.js';
export { consoleLogger } from './observability/logger.js';
export { buildDelegation, buildOutcome, buildRootOutcome, failedChildOutcome } from './messages/messages.js';
export { objectiveFileSchema, planSchema, rootObjectiveSchema, subtaskSchema } from './model/objective.js';
export { OBJECTIVE_SCHEMA_FILE, objectiveJsonSchema, objectiveSchemaFileText } from './client/objective-json-schema.js';
export type { ObjectiveFile, Plan, RootObjective, Subtask } from './model/objective.js';
export { dependencyEdges, withDependencies } from './model/plan-dependencies.js';
export type { DependencyProblem, DependentPlan, DependentSubtask } from './model/plan-dependencies.js';
export { resolveRuntimeOptions, runtimeOptionsFromEnv } from './config/options.js';
export { DEFAULT_CONCURRENCY, DEFAULT_MAX_CRASHES, DEFAULT_PREFIX, DEFAULT_REDIS_URL, RUNTIME_RANGES } from './config/runtime-settings.js';
export { envChoice, envProbability, envRedisUrl, envText, envWhole, MAX_RETENTION_MS, MAX_TIMER_MS, wholeNumber } from './config/env-values.js';
export type { WholeRange, WholeUnit } from './config/env-values.js';
export { ConfigError, configProblems, isSecretName, readEnv } from './config/read-env.js';
export type { EnvProblem } from './config/read-env.js';
export { readTierflowEnv, readTierflowVars, tierflowEnvSchema } from './config/tierflow-env.js';
export type { TierflowEnv } from './config/tierflow-env.js';
export { checkObjectiveSize, checkSubtaskCount, DEFAULT_INPUT_LIMITS, INPUT_LIMIT_ENV, InputTooLargeError, tooManyBytes } from './messages/input-limits.js';
export type { InputLimits } from './messages/input-limits.js';
export { isTlsUrl, redactUrl, redisUrlProblem } from './redis/redis-url.js';
export type { RuntimeOptions, RuntimeOptionsInput } from './config/options.js';
export { bullPriority, QUEUE_OF } from './messages/queues.js';
export { readRunTree } from './audit/run-tree.js';
export { digestAudit, mergeRunTree } from './audit/run-tree-merge.js';
export type { JobFacts, RunNode, RunNodeSource } from './audit/run-tree-merge.js';
export { parseRunStatus, QUEUE_STATES, queueStatesOf, RUN_STATUSES, runStatus, runStatusSchema, UNFINISHED_STATUSES } from './status/run-status.js';
export type { RunStatus, StatusFacts } from './status/run-status.js';
export { startPolicyWorker } from './engine/policy-worker.js';
export type { PolicyWorkerOptions, RootWorkerOptions } from './engine/policy-worker.js';
export { TierWorker } from './engine/tier-worker.js';
export type { TierWorkerOptions } from './engine/tier-worker.js';
export { MessageGate } from './security/message-gate.js';
export { checkMessageTime } from './security/message-window.js';
export type { WindowRefusal } from './security/message-window.js';
export { refusedChildOutcome } from './messages/messages.js';
export { verifiedOutcome } from './security/outcome-check.js';
export { passUp } from './policy/outcome-fields.js';
export { checkedPlan, planWith } from './policy/planner.js';
export { workerBeatSchema } from './workers/heartbeat.js';
export type { RunListOptions, RunSummary } from './client/run-list.js';
export { INPUT_REQUIRED } from './questions/run-questions.js';
export { finished, nodeEvents } from './client/run-events.js';
export type { NodeEvent, WatchEvent } from './client/run-events.js';
export type { RunWait } from './questions/run-questions.js';
export type { RunQuestion } from './audit/run-tree-merge.js';
export type { AnswerReport } from './questions/answer-questions.js';
export type { WorkerBeat } from './workers/heartbeat.js';
export { PROGRESS_INTERVAL_MS, progressRecordSchema, progressText } from './progress/progress.js';
export { progressUpdateSchema } from './policy/progress-update.js';
export type { ProgressRecord } from './progress/progress.js';
export type { ProgressUpdate } from './policy/progress-update.js';
export type { PlanRequest, Planner } from './policy/planner.js';
export type { OutcomeFields } from './policy/outcome-fields.js';
export { ReplayGuard } from './security/replay-guard.js';
export { checkSignature, signRecord } from './security/signing.js';
export type { SignatureCheck } from './security/signing.js';
export { DEFAULT_MAX_CLOCK_SKEW_MS, directoryKeySource, KeyRing, Signer, signerOf, SIGNING_ENV, signingFromEnv } from './security/signing-keys.js';
export type { KeySource, SigningConfig } from './security/signing-keys.js';
export { currentKeys, generateKeySet, privateKeyPath, readKeySetFile, retireKey, rotateKey } from './security/key-directory.js';
export { PARTIES, PUBLIC_KEYS_FILE } from './security/key-set.js';
export type { PublicKeyEntry } from './security/key-set.js';
export { resignForReplay } from './dead-letters/resign.js';
