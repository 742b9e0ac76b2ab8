import { ERROR_TYPES } from './error-types.js';

/**
 * What sort of failure a thrown error is. A command's exit status, an HTTP status and an A2A error
 * are each chosen from the kind, never from the code's spelling or the error's class.
 * - `invalid_input`: what was given (an argument, a file, a setting, a request) cannot be used;
 * - `not_found`: what was named does not exist (here, or any more);
 * - `conflict`: it cannot be done in the state things are in now;
 * - `unavailable`: something it needs (Redis, a model endpoint, a remote agent) cannot be reached
 *   or is busy: it may work later;
 * - `forbidden`: a rule refuses it (a token, a signature, a boundary, a permission, a budget);
 * - `internal`: Tierflow, a handler or a stored record is at fault.
 */
export const ERROR_KINDS = ['invalid_input', 'not_found', 'conflict', 'unavailable', 'forbidden', 'internal'] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

interface CodeEntry {
  readonly kind: ErrorKind;
  readonly meaning: string;
}

/**
 * Every code Tierflow puts on an error it throws, with its kind and what it means, declared here
 * once (the table in docs/protocol.md#thrown-errors follows it). A permanent error's code becomes
 * its outcome's `error_type`, so a code is never renamed. Codes that are also outcome error types
 * are taken from {@link ERROR_TYPES}.
 */
export const THROWN_ERRORS = {
  // invalid_input
  invalid_config: { kind: 'invalid_input', meaning: 'a setting, variable, option or key file cannot be used' },
  invalid_argument: { kind: 'invalid_input', meaning: 'an argument of a call is out of range' },
  invalid_input: { kind: 'invalid_input', meaning: 'a dead letter cannot be replayed or signed as it is' },
  invalid_message: { kind: 'invalid_input', meaning: 'a message or a job does not pass validation or the signing checks' },
  invalid_objective: { kind: 'invalid_input', meaning: 'an objective file is not valid' },
  [ERROR_TYPES.inputTooLarge]: { kind: 'invalid_input', meaning: 'an objective over the input limits' },
  invalid_answer: { kind: 'invalid_input', meaning: 'an answer to a question is blank or too long' },
  unknown_question: { kind: 'invalid_input', meaning: 'an answer names a question the run does not ask' },
  unknown_blocker: { kind: 'invalid_input', meaning: 'an unblock names a node that reported none of the run’s open blockers' },
  invalid_plan: { kind: 'invalid_input', meaning: 'a planner gave a plan that cannot be run' },
  [ERROR_TYPES.invalidOutputSchema]: { kind: 'invalid_input', meaning: 'an expected-output schema cannot be used' },
  invalid_artifact: { kind: 'invalid_input', meaning: 'an artifact has no type or a ref that is not a Beads key' },
  invalid_beads_key: { kind: 'invalid_input', meaning: 'not a Beads key' },
  invalid_beads_ttl: { kind: 'invalid_input', meaning: 'a Beads TTL that is not a whole number of milliseconds' },
  beads_unserializable: { kind: 'invalid_input', meaning: 'a value to write to Beads is not JSON' },
  invalid_specialist: { kind: 'invalid_input', meaning: 'a specialist defined with options it cannot run with' },
  invalid_tool: { kind: 'invalid_input', meaning: 'a tool defined with a name a model cannot call, or no function' },
  invalid_task_data: { kind: 'invalid_input', meaning: "the code runner's task_data cannot be run" },
  invalid_sim_config: { kind: 'invalid_input', meaning: "the simulated specialist's script is not valid" },
  llm_call_refused: { kind: 'invalid_input', meaning: 'the model endpoint refused the request for good' },
  [ERROR_TYPES.contextTooLarge]: { kind: 'invalid_input', meaning: "a prompt over its delegation's max_context_tokens" },
  a2a_call_refused: { kind: 'invalid_input', meaning: 'a remote A2A agent refused the request for good' },
  [ERROR_TYPES.compositionInvalid]: { kind: 'invalid_input', meaning: "a plan's archetype composition does not sum to 100 % or names an unknown domain" },
  // not_found
  root_not_found: { kind: 'not_found', meaning: "no such root on this deployment's Monitor queue" },
  root_vanished: { kind: 'not_found', meaning: 'a root that existed no longer does' },
  no_route: { kind: 'not_found', meaning: "the Dispatcher has no route for a subtask's task_type, and no fallback" },
  // conflict
  not_waiting: { kind: 'conflict', meaning: 'the run asks nothing now' },
  already_answered: { kind: 'conflict', meaning: 'the question is answered already' },
  not_blocked: { kind: 'conflict', meaning: 'the run waits on no blocked work now' },
  lock_lost: { kind: 'conflict', meaning: "another worker took the job: this pass's writes were dropped" },
  redis_in_use: { kind: 'conflict', meaning: "a redis-server left by a killed `tierflow dev` still runs on dev's data" },
  duplicate_specialist: { kind: 'conflict', meaning: 'two specialists of one name' },
  client_closed: { kind: 'conflict', meaning: 'the client was closed while it waited' },
  a2a_no_result: { kind: 'conflict', meaning: 'a remote A2A task still runs: it has no result yet' },
  [ERROR_TYPES.replayMiss]: { kind: 'conflict', meaning: 'a strict replay met a model call no recording matches' },
  // unavailable
  transient: { kind: 'unavailable', meaning: 'a retryable error without a code of its own' },
  redis_unreachable: { kind: 'unavailable', meaning: 'Redis cannot be reached or used' },
  redis_unavailable: { kind: 'unavailable', meaning: '`tierflow dev` cannot start a redis-server' },
  wait_timeout: { kind: 'unavailable', meaning: "a wait for a root's outcome passed its limit" },
  [ERROR_TYPES.modelUnreachable]: { kind: 'unavailable', meaning: 'the model endpoint cannot be reached' },
  llm_call_failed: { kind: 'unavailable', meaning: 'a model call failed in a way a retry may mend' },
  model_capacity_wait: { kind: 'unavailable', meaning: 'a model call that parked its job until its model has room (met only outside the engine)' },
  a2a_call_failed: { kind: 'unavailable', meaning: 'a call to a remote A2A agent failed in a way a retry may mend' },
  mcp_call_failed: { kind: 'unavailable', meaning: 'a tool call to an MCP server failed (the server stopped, or the connection broke)' },
  [ERROR_TYPES.throttled]: { kind: 'unavailable', meaning: 'a specialist at its concurrency limit' },
  [ERROR_TYPES.specialistUnavailable]: { kind: 'unavailable', meaning: 'a specialist that cannot serve: another may' },
  language_unavailable: { kind: 'unavailable', meaning: "the code runner's language is not installed on this host" },
  sim_transient: { kind: 'unavailable', meaning: "the simulated specialist's scripted transient failure" },
  // forbidden
  [ERROR_TYPES.boundaryViolation]: { kind: 'forbidden', meaning: "a delegation outside its sender's collaboration boundaries" },
  [ERROR_TYPES.handoffRefused]: { kind: 'forbidden', meaning: 'a handoff interceptor refused the message' },
  [ERROR_TYPES.attestationMissing]: { kind: 'forbidden', meaning: 'a handoff without the governance attestation the deployment requires' },
  [ERROR_TYPES.attestationInvalid]: { kind: 'forbidden', meaning: "a handoff whose governance attestation's claims do not hold" },
  delegation_refused: { kind: 'forbidden', meaning: 'a delegation the nested fan-out guard refuses' },
  beads_write_denied: { kind: 'forbidden', meaning: 'a tier wrote a Beads namespace it may not' },
  a2a_unauthorized: { kind: 'forbidden', meaning: 'a remote A2A agent refused the token' },
  [ERROR_TYPES.budgetExceeded]: { kind: 'forbidden', meaning: 'the run reached its budget' },
  // internal
  permanent: { kind: 'internal', meaning: 'a permanent error without a code of its own' },
  engine_invariant: { kind: 'internal', meaning: 'the engine reached a state it cannot be in (a bug)' },
  invalid_outcome: { kind: 'internal', meaning: 'an outcome built by a tier with no tier above' },
  [ERROR_TYPES.corruptRecord]: { kind: 'internal', meaning: 'a record the job needs is unreadable or fails its signature' },
  beads_corrupt: { kind: 'internal', meaning: 'a Beads value that is not JSON' },
  beads_invalid_value: { kind: 'internal', meaning: 'a Beads value its schema refuses' },
  root_failed: { kind: 'internal', meaning: "a root's job failed outside the tiers" },
  root_outcome_invalid: { kind: 'internal', meaning: 'a root finished without a valid outcome of its own' },
  root_unreadable: { kind: 'internal', meaning: "a root's record cannot be read as a job" },
  invalid_round: { kind: 'internal', meaning: "a round of children came back not matching its tier's plan" },
  invalid_memo: { kind: 'internal', meaning: "a tier's stored memo is unreadable" },
  unexpected_step: { kind: 'internal', meaning: 'a handler under test took another step than the test expects' },
  worker_exited: { kind: 'internal', meaning: '`tierflow demo`: a tier worker exited while starting' },
  code_runner_spawn_failed: { kind: 'internal', meaning: 'the code runner could not start or confine its child' },
  invalid_specialist_result: { kind: 'internal', meaning: 'a specialist returned a result out of shape' },
  a2a_invalid_response: { kind: 'internal', meaning: 'a remote A2A agent answered out of shape' },
  sim_permanent: { kind: 'internal', meaning: "the simulated specialist's scripted permanent failure" },
} as const satisfies Record<string, CodeEntry>;

/** A code of Tierflow's own: a misspelt one does not compile. */
export type ThrownCode = keyof typeof THROWN_ERRORS;

export function isThrownCode(code: string): code is ThrownCode {
  return Object.hasOwn(THROWN_ERRORS, code);
}

/** The kind of one of Tierflow's codes, or `fallback` for a code of someone else's. */
export function kindOfCode(code: string, fallback: ErrorKind = 'internal'): ErrorKind {
  return isThrownCode(code) ? THROWN_ERRORS[code].kind : fallback;
}

export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && (ERROR_KINDS as readonly string[]).includes(value);
}
