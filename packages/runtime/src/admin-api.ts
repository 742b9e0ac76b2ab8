/**
 * `@tierflow/runtime/admin`: what the `tierflow` command and `tierflow serve` are built on:
 * reading runs, audit trails and dead letters, the deployment's keys and cells, its settings
 * and signing keys. Not a stable surface for applications; it moves with the CLI and server.
 *
 * @module
 * @example
 * ```ts
 * import { readAuditTrail } from '@tierflow/runtime/admin';
 * ```
 */
export { AUDIT_KINDS } from './audit/audit-entry.js';
export { auditKey, controlKeys, recordKey, rerunKeys } from './redis/keys.js';
export type { AuditKind, AuditRecord } from './audit/audit-entry.js';
export { readAuditTrail } from './audit/audit-read.js';
export { chainHash, readAuditChain, verifyAuditChain } from './audit/audit-chain.js';
export type { ChainLink, ChainProblem, ChainReport, StreamCounts } from './audit/audit-chain.js';
export { readRecording } from './recording/read-recording.js';
export { nodeRecords, parseRecordEntries, waitsOf } from './recording/node-record.js';
export type { NodeRecord, RunRecording, Wait } from './recording/node-record.js';
export { recordEntrySchema, RECORD_FIELD } from './recording/record-entry.js';
export type { CallEntry, DelegationEntry, OutcomeEntry, PassEntry, RecordEntry, ReusedEntry } from './recording/record-entry.js';
export { isDigest } from './recording/bounded.js';
export type { Digest } from './recording/bounded.js';
export { RunRecorder, requestHash } from './recording/run-recorder.js';
export { RECORD_MODES } from './config/record-mode.js';
export type { RecordMode } from './config/record-mode.js';
export { nodePath, REPLAY_MODES, rerunSpecSchema } from './rerun/rerun-spec.js';
export type { ReplayMode, RerunSpec, RerunSpecInput } from './rerun/rerun-spec.js';
export { replayAnswerSchema } from './recording/node-calls.js';
export { CLIENT } from './security/party.js';
export type { Party } from './security/party.js';
export { jobOptions } from './engine/child-jobs.js';
export { WAIT_GRACE_MS } from './client/wait-limit.js';
export { connect, connectReachable, redisWhere } from './redis/connection.js';
export { awaitReachable } from './redis/reach.js';
export { unservedNotice } from './workers/unserved.js';
export type { RedisClient } from '@tierflow/beads';
export { cellOf, cellOfRoot, cellPrefixes, cellsGlob, servedCells } from './cells/cells.js';
export { DEAD_LETTER_QUEUE, DeadLetters } from './dead-letters/dead-letters.js';
export { buildDelegation, buildRootOutcome } from './messages/messages.js';
export { objectiveJsonSchema } from './client/objective-json-schema.js';
export { DEFAULT_CONCURRENCY, DEFAULT_PREFIX, DEFAULT_REDIS_URL } from './config/runtime-settings.js';
export { configProblems, isSecretName } from './config/read-env.js';
export { readTierflowEnv, readTierflowVars, tierflowEnvSchema } from './config/tierflow-env.js';
export type { TierflowEnv } from './config/tierflow-env.js';
export { checkObjectiveSize, tooManyBytes } from './messages/input-limits.js';
export type { InputLimits } from './messages/input-limits.js';
export { isTlsUrl, redactUrl, redisUrlProblem } from './redis/redis-url.js';
export { QUEUE_OF } from './messages/queues.js';
export { digestAudit, mergeRunTree } from './audit/run-tree-merge.js';
export { CASCADE_SIGNALS } from './audit/cascade-signals.js';
export { parseRunStatus, runStatus, runStatusSchema, UNFINISHED_STATUSES } from './status/run-status.js';
export { workerBeatSchema } from './workers/heartbeat.js';
export { finished, nodeEvents } from './client/run-events.js';
export { progressText } from './progress/progress.js';
export { checkSignature, signRecord } from './security/signing.js';
export { Signer, signerOf, SIGNING_ENV, signingFromEnv } from './security/signing-keys.js';
export type { SigningConfig } from './security/signing-keys.js';
export { currentKeys, generateKeySet, privateKeyPath, readKeySetFile, retireKey, rotateKey } from './security/key-directory.js';
export { PARTIES, PUBLIC_KEYS_FILE } from './security/key-set.js';
export type { PublicKeyEntry } from './security/key-set.js';
export { resignForReplay } from './dead-letters/resign.js';
export { OBJECTIVE_SCHEMA_FILE, objectiveSchemaFileText } from './client/objective-json-schema.js';
export { bullQueue } from './redis/bull-queue.js';
export { readNodeOutcome, readNodeView, readTimeline } from './recording/read-node-view.js';
export { nodeViewSchema } from './recording/node-view-schema.js';
export type { ChatMessage, NodeArtifact, NodeCall, NodeInput, NodeMetadata, NodeOutcome, NodePass, NodeToolCall, NodeView, NodeWait } from './recording/node-view-schema.js';
export { runTimelineSchema, SPAN_KINDS } from './recording/run-timeline.js';
export type { RunTimeline, TimelineSpan } from './recording/run-timeline.js';
export { rootIdOf } from './messages/ids.js';
export { METRIC_STORE_INTERVAL_MS, metricStoreReader, RedisMetricExporter } from './metrics-store/redis-exporter.js';
export type { MetricStoreReaderOptions, RedisMetricExporterOptions } from './metrics-store/redis-exporter.js';
export { modelLimitsGlob } from './model-limits/model-limit.js';
export { METRIC_STORE_DEFAULTS, METRIC_WRITERS, metricStoreKeys, minuteOf, readStoreMinutes, readStoreTotals, writeToStore } from './metrics-store/metric-store.js';
export type { MetricStoreLimits, MetricWriter, StoredMinute } from './metrics-store/metric-store.js';
export { addHash, cumulativeBuckets, emptyMetrics, seriesOf } from './metrics-store/store-read.js';
export type { StoredMetrics, StoredSeries } from './metrics-store/store-read.js';
export { gaugeGroups } from './metrics-store/store-write.js';
export type { GaugeSample } from './metrics-store/store-write.js';
export { calibrationBinSchema, historyReportSchema, readHistoryReport, specialistStatsSchema } from './learning/history-report.js';
export type { HistoryReport, HistoryReportOptions } from './learning/history-report.js';
export { readWebhookDeliveries, webhookDeliverySchema } from './notify/webhook-deliveries.js';
export { NOTIFY_QUEUE } from './notify/webhook-queue.js';
export type { WebhookDelivery } from './notify/webhook-deliveries.js';
export { acceptCommand, agentBlockedDetail, agentBlockKey, AgentBlocks, agentBlockSchema, agentBlocksPrefix } from './governance/agent-blocks.js';
export type { AgentBlock } from './governance/agent-blocks.js';
