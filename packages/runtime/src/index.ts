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
export { InvalidJobError, readAssignment, ROOT_TASK_TYPE } from './assignment.js';
export { AUDIT_CLIENT, AUDIT_KINDS, auditKey, DEFAULT_AUDIT_TTL_MS } from './audit-entry.js';
export type { AuditDirection, AuditEntry, AuditKind, AuditRecord } from './audit-entry.js';
export { readAuditTrail } from './audit-read.js';
export { cancelMessage, releaseChildren } from './cancel.js';
export type { CancelOptions, CancelReport } from './cancel.js';
export { abortNoticeSchema, readAbortNotice } from './control-notice.js';
export type { AbortNotice } from './control-notice.js';
export { controlKeys, roundKeyOf } from './control-keys.js';
export { cancellersOf, CLIENT, partyOf } from './party.js';
export type { Party } from './party.js';
export { RunningHandlers, isStopReason } from './control-listener.js';
export type { RunningHandlersOptions, StopReason } from './control-listener.js';
export { JobFinder } from './job-finder.js';
export { TIMEOUT_GRACE_MS, deadlineOf, receiverMarginMs } from './timing.js';
export { callWithRetry } from './call-with-retry.js';
export type { CallWithRetryOptions } from './call-with-retry.js';
export { BACKOFF_TYPE, childJobs, jobOptions } from './child-jobs.js';
export { ObjectiveFileError, TierflowClient } from './client.js';
export { RootWaitError } from './wait-errors.js';
export type { RootWaitErrorCode } from './wait-errors.js';
export { DEFAULT_WAIT_LIMIT_MS, WAIT_GRACE_MS } from './wait-limit.js';
export { connect } from './connection.js';
export { DEAD_LETTER_QUEUE, DeadLetters } from './dead-letters.js';
export type { DeadLetter } from './dead-letters.js';
export { WORKER_CRASHED } from './crash-guard.js';
export { failureDraft, isPermanent, stoppedDraft } from './failures.js';
export { withExpectedOutput } from './expected-output.js';
export { checkUpstream, withCascadeCheck } from './upstream-check.js';
export type { CheckedRound } from './upstream-check.js';
export type { Assignment, DelegationDraft, OutcomeDraft, SettledChild, SettledRound, Step, TierContext, TierHandler, TierLogger } from './handler.js';
export { childMessageId, newRootId, outcomeMessageId, rootIdOf } from './ids.js';
export { consoleLogger } from './logger.js';
export { buildDelegation, buildOutcome, failedChildOutcome } from './messages.js';
export { objectiveFileSchema, planSchema, rootObjectiveSchema, subtaskSchema } from './objective.js';
export type { ObjectiveFile, Plan, RootObjective, Subtask } from './objective.js';
export { resolveRuntimeOptions, runtimeOptionsFromEnv } from './options.js';
export { DEFAULT_MAX_CRASHES, DEFAULT_PREFIX, DEFAULT_REDIS_URL, RUNTIME_RANGES } from './config/runtime-settings.js';
export { envChoice, envProbability, envRedisUrl, envText, envWhole, MAX_RETENTION_MS, MAX_TIMER_MS, wholeNumber } from './config/env-values.js';
export type { WholeRange, WholeUnit } from './config/env-values.js';
export { ConfigError, configProblems, readEnv } from './config/read-env.js';
export type { EnvProblem } from './config/read-env.js';
export { readTierflowEnv, tierflowEnvSchema } from './config/tierflow-env.js';
export type { TierflowEnv } from './config/tierflow-env.js';
export { checkObjectiveSize, checkSubtaskCount, DEFAULT_INPUT_LIMITS, INPUT_LIMIT_ENV, INPUT_TOO_LARGE, InputTooLargeError, tooManyBytes } from './input-limits.js';
export type { InputLimits } from './input-limits.js';
export { redactUrl, redisUrlProblem } from './redis-url.js';
export type { RuntimeOptions, RuntimeOptionsInput } from './options.js';
export { bullPriority, QUEUE_OF, tierFromSlug, TIER_OF_QUEUE } from './queues.js';
export type { TierSlug } from './queues.js';
export { readRunTree } from './run-tree.js';
export type { RunNode, RunNodeSource } from './run-tree-merge.js';
export { TierWorker } from './tier-worker.js';
export type { TierWorkerOptions } from './tier-worker.js';
export { MessageGate } from './message-gate.js';
export { checkMessageTime } from './message-window.js';
export type { WindowRefusal } from './message-window.js';
export { refusedChildOutcome } from './messages.js';
export { verifiedOutcome } from './outcome-check.js';
export { passUp } from './outcome-fields.js';
export type { OutcomeFields } from './outcome-fields.js';
export { ReplayGuard } from './replay-guard.js';
export { checkSignature, SIGNATURE_INVALID, signRecord } from './signing.js';
export type { SignatureCheck } from './signing.js';
export { DEFAULT_MAX_CLOCK_SKEW_MS, directoryKeySource, KeyRing, Signer, signerOf, SIGNING_ENV, signingFromEnv } from './signing-keys.js';
export type { KeySource, SigningConfig } from './signing-keys.js';
export { currentKeys, generateKeySet, privateKeyPath, readKeySetFile, retireKey, rotateKey } from './key-directory.js';
export { PARTIES, PUBLIC_KEYS_FILE } from './key-set.js';
export type { PublicKeyEntry } from './key-set.js';
export { resignForReplay } from './resign.js';
