/**
 * The `error_type` codes Tierflow itself sets, defined once: the tier that sets a code and the
 * tier that acts on it both read it from here. A specialist may set codes of its own, so the
 * wire field stays a string. The table in docs/protocol.md#error-types says who sets each one.
 */
export const ERROR_TYPES = {
  /** An aggregate where most children succeeded. */
  partialCompletion: 'partial_completion',
  /** An aggregate where most did not: the Architect's cue to revise its strategy. */
  majorityFailed: 'majority_failed',
  /** An aggregate where nothing succeeded or progressed. */
  allFailed: 'all_failed',
  /** A question, from a specialist or an aggregate. */
  ambiguousRequest: 'ambiguous_request',
  /** The confidence cascade held work for a person to look at. */
  needsReview: 'needs_review',
  /** The confidence cascade refused work below its lowest bound. */
  lowConfidence: 'low_confidence',
  /** Work under the cascade's flag bound whose error policy says `retry`: its sender sends it once more, with the concern. */
  lowConfidenceRetry: 'low_confidence_retry',
  /** The answer did not match its expected-output schema. */
  formatMismatch: 'format_mismatch',
  /** The expected-output schema itself could not be used. */
  invalidOutputSchema: 'invalid_output_schema',
  /** The specialist asked for cannot run (not loaded, out of capacity for good): the Dispatcher routes to another. */
  specialistUnavailable: 'specialist_unavailable',
  /** The agent named is not in the Fleet's registry: another may serve it. */
  unknownAgent: 'unknown_agent',
  /** A delegation outside its sender's collaboration boundaries, refused before it was sent. */
  boundaryViolation: 'boundary_violation',
  /** A handoff interceptor refused the message (docs/protocol.md#handoff-interceptors). */
  handoffRefused: 'handoff_refused',
  /** The receiving agent rejected the handoff before any work started (docs/protocol.md#explicit-rejection): another may take it. */
  handoffRejected: 'handoff_rejected',
  /** A subtask not run because a subtask it depends on did not succeed (docs/protocol.md#subtask-dependencies). */
  dependencyFailed: 'dependency_failed',
  /** The agent's version or prompt hash differs from the one pinned. */
  agentHashMismatch: 'agent_hash_mismatch',
  /** The agent is blocked after a hash mismatch, until an operator reconciles it (`tierflow lock --accept`). */
  agentBlocked: 'agent_blocked',
  /** A specialist at its concurrency limit. */
  throttled: 'throttled',
  /** Blocked work, as an aggregate reports it. */
  blocked: 'blocked',
  /** A deadline passed. */
  timeout: 'timeout',
  /** The work was cancelled. */
  cancelled: 'cancelled',
  /** A transient error persisted through every attempt. */
  retriesExhausted: 'retries_exhausted',
  /** The model endpoint could not be reached (refused, unknown host, TLS): no call reached a model, so none is charged. */
  modelUnreachable: 'model_unreachable',
  /** A prompt built for the work was over its delegation's `handoff.max_context_tokens`: the model was not called. */
  contextTooLarge: 'context_too_large',
  /** A permanent error without a code of its own. */
  permanentError: 'permanent_error',
  /** A child's job failed outside its handler, or vanished. */
  jobFailed: 'job_failed',
  /** The job's workers died too often running it (poison work). */
  workerCrashed: 'worker_crashed',
  /** A record the job cannot go on without was unreadable or failed its signature. */
  corruptRecord: 'corrupt_record',
  /** An outcome unsigned, forged or signed by the wrong party. */
  signatureInvalid: 'signature_invalid',
  /** A handoff without a governance attestation, where the deployment requires one (docs/protocol.md#attestations). */
  attestationMissing: 'attestation_missing',
  /** A handoff whose governance attestation claims what does not hold: forged, or made for another message. */
  attestationInvalid: 'attestation_invalid',
  /** A plan whose archetype composition does not hold: shares not summing to 100 %, or an unknown domain. */
  compositionInvalid: 'composition_invalid',
  /** A root objective over the input limits, refused before it is enqueued. */
  inputTooLarge: 'input_too_large',
  /** The run reached its budget (tokens, cost or model calls): the whole run is cancelled. */
  budgetExceeded: 'budget_exceeded',
  /** A strict replay (`tierflow rerun --replay=strict`) met a model call that nothing recorded matches. */
  replayMiss: 'replay_miss',
  /** A remote Tierflow refused work that this deployment had already handed on (docs/protocol.md#delegation-across-deployments). */
  delegationCycle: 'delegation_cycle',
  /** A remote Tierflow refused work that has crossed more deployments than it allows. */
  delegationTooDeep: 'delegation_too_deep',
} as const;

/** One of the codes Tierflow sets. */
export type ErrorType = (typeof ERROR_TYPES)[keyof typeof ERROR_TYPES];

/** The codes a Fleet sets for the Dispatcher to route the subtask to another specialist. */
export const ROUTABLE_ERROR_TYPES = {
  specialistUnavailable: ERROR_TYPES.specialistUnavailable,
  unknownAgent: ERROR_TYPES.unknownAgent,
  handoffRejected: ERROR_TYPES.handoffRejected,
} as const;
