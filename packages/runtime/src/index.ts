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

export { HandoffRefusedError } from './handoff/chain.js';
export type { HandoffInterceptor } from './policy/handoff.js';
export { BudgetExceededError } from './budget/usage-meter.js';
export type { UsageMeter, UsageReservation } from './policy/usage-meter.js';
export { ObjectiveFileError, TierflowClient } from './client/client.js';
export type { RunTrace } from './client/client.js';
export { readRunExport, RUN_EXPORT_VERSION } from './rerun/run-export.js';
export type { RunExport } from './rerun/run-export.js';
export type { RerunRequest } from './rerun/prepare-rerun.js';
export { RootWaitError } from './client/wait-errors.js';
export type { RootWaitErrorCode } from './client/wait-errors.js';
export { DEFAULT_WAIT_LIMIT_MS } from './client/wait-limit.js';
export { RedisUnreachableError } from './redis/reach.js';
export type { Assignment, DelegationDraft, OutcomeDraft, PolicyDecision, SettledChild, SettledRound, Step, TierContext, TierHandler, TierLogger } from './policy/handler.js';
export { consoleLogger } from './observability/logger.js';
export { objectiveFileSchema } from './model/objective.js';
export type { ObjectiveFile, Plan, RootObjective, Subtask } from './model/objective.js';
export { deploymentIdFromEnv, resolveRuntimeOptions, runtimeOptionsFromEnv } from './config/options.js';
export { derivedDeploymentId } from './config/deployment-id.js';
export { ConfigError } from './config/read-env.js';
export { InputTooLargeError } from './messages/input-limits.js';
export type { RuntimeOptions, RuntimeOptionsInput } from './config/options.js';
export type { GenAiOptions } from './observability/gen-ai/conventions.js';
export type { NodeRejection, RunBlocker, RunNode, RunNodeSource, RunQuestion } from './audit/run-tree-merge.js';
export type { CascadeSignal, NodeCascade } from './audit/cascade-signals.js';
export { RUN_STATUSES } from './status/run-status.js';
export type { RunStatus } from './status/run-status.js';
export { startPolicyWorker } from './engine/policy-worker.js';
export type { PolicyWorkerOptions, RootWorkerOptions } from './engine/policy-worker.js';
export { TierWorker } from './engine/tier-worker.js';
export type { TierWorkerOptions } from './engine/tier-worker.js';
export type { RunListOptions, RunPage, RunSummary } from './client/run-list.js';
export type { RunFilter } from './run-index/run-filter.js';
export { INPUT_REQUIRED } from './questions/run-questions.js';
export type { NodeEvent, WatchEvent } from './client/run-events.js';
export type { RunWait } from './questions/run-questions.js';
export type { AnswerReport } from './questions/answer-questions.js';
export type { UnblockReport } from './questions/unblock-work.js';
export type { RunBlockedWait } from './questions/run-blocked.js';
export type { WorkerBeat } from './workers/heartbeat.js';
export type { ProgressUpdate } from './policy/progress-update.js';
export { EVENT_ID_HEADER, SIGNATURE_HEADER, verifyWebhookSignature, webhookSignatureHeader } from './notify/webhook-signature.js';
export type { SignatureVerdict, VerifyWebhookInput } from './notify/webhook-signature.js';
export { WEBHOOK_EVENT_TYPES, webhookEventSchema, webhookEventTypeSchema } from './notify/webhook-events.js';
export type { WebhookEvent, WebhookEventType } from './notify/webhook-events.js';
export type { NotifyOptionsInput, WebhookSubscriptionInput } from './notify/delivery-policy.js';
