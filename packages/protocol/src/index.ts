/**
 * The Tierflow wire format: the handoff protocol's envelope, payloads and aggregation types as
 * zod schemas (types derive from them), the version rules, and a validator that reports every error.
 *
 * ```ts
 * import { validate, formatValidationError } from '@tierflow/protocol';
 *
 * const result = validate(JSON.parse(text));
 * if (result.ok) route(result.value);
 * else for (const error of result.errors) console.error(formatValidationError(error));
 * ```
 */
export { agentIdentitySchema, publishedAgentSchema } from './agent-identity.js';
export { ERROR_TYPES, ROUTABLE_ERROR_TYPES } from './error-types.js';
export type { ErrorType } from './error-types.js';
export type { AgentIdentity, PublishedAgent } from './agent-identity.js';
export {
  attestationFor,
  attestationSchema,
  auditRefOf,
  checkAttestation,
  COMPOSITION_KEY,
  COMPOSITION_TOLERANCE,
  compositionProblems,
  compositionSchema,
  SOURCE_VERIFICATIONS,
  TARGET_VERIFICATIONS,
} from './attestation.js';
export type { Attestation, AttestationContext, AttestationFacts, AttestationRefusal, AttestedEnvelope, Composition } from './attestation.js';
export { aggregatedOutcomeSchema, AGGREGATION_STRATEGIES, aggregationStrategySchema, childOutcomeSummarySchema, parallelDelegationSchema } from './aggregation.js';
export type { AggregatedOutcome, AggregationStrategy, ChildOutcomeSummary, ParallelDelegation } from './aggregation.js';
export { artifactSchema, INLINE_CONTENT_LIMIT_BYTES, utf8ByteLength } from './artifact.js';
export type { Artifact, ArtifactInput } from './artifact.js';
export { canonicalJson, signingInput } from './canonical.js';
export { blockerSchema, unblockedOf, unblockNoteFor, unblockNoteSchema } from './blocker.js';
export type { Blocker, UnblockNote } from './blocker.js';
export { answerTo, clarificationSchema, clarificationsOf, MAX_CLARIFICATION_CHARS, questionSchema } from './clarification.js';
export type { Clarification, Question } from './clarification.js';
export { CASCADE_ACTION_NAMES, cascadeActionSchema, cascadeCheckSchema } from './cascade-check.js';
export { DEFAULT_ERROR_POLICY, errorPolicySchema, FORMAT_MISMATCH_POLICIES, inheritErrorPolicy, LOW_CONFIDENCE_POLICIES, resolveErrorPolicy, TIMEOUT_POLICIES } from './error-policy.js';
export type { ErrorPolicy, FormatMismatchPolicy, LowConfidencePolicy, ResolvedErrorPolicy, TimeoutPolicy } from './error-policy.js';
export type { CascadeCheck } from './cascade-check.js';
export { EVIDENCE_GRADES, evidenceGradeSchema, evidenceRank, weakestGrade } from './evidence-grade.js';
export type { EvidenceGrade } from './evidence-grade.js';
export {
  dataFreshnessSchema,
  handoffConstraintsSchema,
  handoffMetadataSchema,
  handoffMetadataShape,
  inheritHandoffConstraints,
  MAX_HANDOFF_NOTES,
  OUTPUT_FORMATS,
  outputFormatSchema,
} from './handoff-metadata.js';
export type { HandoffConstraints, HandoffMetadata, OutputFormat } from './handoff-metadata.js';
export {
  chainIn,
  chainRefusal,
  DEFAULT_MAX_DELEGATION_DEPTH,
  DELEGATION_CHAIN_KEY,
  DELEGATION_REFUSALS,
  delegationChainSchema,
  deploymentIdSchema,
  extendedChain,
  LOCAL_CHAIN,
  MAX_DELEGATION_DEPTH,
} from './delegation-chain.js';
export type { DelegationChain, DelegationRefusal, DelegationRefusalType } from './delegation-chain.js';
export { ERROR_KINDS, isErrorKind, isThrownCode, kindOfCode, THROWN_ERRORS } from './error-codes.js';
export type { ErrorKind, ThrownCode } from './error-codes.js';
export { errorKindOf, isTierflowError, TierflowError } from './errors.js';
export type { TierflowErrorOptions, TierflowFactoryOptions } from './errors.js';
export { fastSafeParse } from './fast-parse.js';
export { beadsRefSchema, messageIdSchema, timestampSchema } from './identifiers.js';
export type { BeadsRef, MessageId } from './identifiers.js';
export { jsonSchemaFiles } from './json-schema-files.js';
export { isWireTypeName, jsonSchemaOf, WIRE_TYPE_NAMES, WIRE_TYPES } from './json-schema.js';
export type { WireTypeName } from './json-schema.js';
export { MAX_JSON_DEPTH, tooDeepAt } from './json-depth.js';
export { isJsonObject, jsonObjectSchema, whenObject } from './json.js';
export type { JsonObject, KnownFields } from './json.js';
export {
  cancellationMessageSchema,
  delegationMessageSchema,
  isCancellation,
  isDelegation,
  isOutcome,
  MESSAGE_KINDS,
  MESSAGE_SCHEMAS,
  messageKind,
  messageSchema,
  outcomeMessageSchema,
  payloadKind,
} from './message.js';
export type { CancellationMessage, CancellationMessageInput, DelegationMessage, DelegationMessageInput, Message, MessageKind, OutcomeMessage, OutcomeMessageInput } from './message.js';
export { cancellationPayloadSchema } from './payloads/cancellation.js';
export type { CancellationPayload, CancellationPayloadInput } from './payloads/cancellation.js';
export { DEFAULT_PRIORITY, delegationPayloadSchema, prioritySchema } from './payloads/delegation.js';
export type { DelegationPayload, DelegationPayloadInput } from './payloads/delegation.js';
export { confidenceSchema, outcomePayloadSchema } from './payloads/outcome.js';
export type { OutcomePayload, OutcomePayloadInput } from './payloads/outcome.js';
export { messageSignatureSchema, SIGNATURE_ALG } from './signature.js';
export type { MessageSignature } from './signature.js';
export { isErrorStatus, OUTCOME_STATUSES, outcomeStatusSchema } from './statuses.js';
export type { OutcomeStatus } from './statuses.js';
export { isTierName, TIER_LEVELS, TIER_NAMES, TIER_SLUGS, tierAbove, tierBelow, tierLevel, tierNameSchema, tierOfSlug } from './tiers.js';
export type { TierLevel, TierName, TierSlug } from './tiers.js';
export { upstreamOf, upstreamWorkSchema } from './upstream.js';
export type { UpstreamWork, UpstreamWorkInput } from './upstream.js';
export { budgetSchema, usageSchema } from './usage.js';
export type { Budget, Usage } from './usage.js';
export { formatJsonPath, formatValidationError, InvalidMessageError, parseMessage, validate, validateWith } from './validate.js';
export type { ValidationError, ValidationResult } from './validate.js';
export { isSupportedVersion, parseVersion, PROTOCOL_VERSION, SUPPORTED_MAJOR_VERSIONS, unsupportedVersionMessage, versionSchema } from './version.js';
export type { ProtocolVersion } from './version.js';
