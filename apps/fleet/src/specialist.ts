import type { Context } from '@opentelemetry/api';
import { canonicalJson, ERROR_TYPES, isTierflowError, TierflowError, type EvidenceGrade, type OutputFormat, type Usage } from '@tierflow/protocol';
import type { ProgressUpdate } from '@tierflow/runtime';
import type { ModelCalls } from '@tierflow/runtime/policy';
import { z } from 'zod';

/** What a specialist is asked to do: the Fleet's delegation, flattened, plus the try number and a stop signal. */
export interface SpecialistInput {
  /** The delegation's message id; outputs are stored under `execution/outputs/<messageId>`. */
  readonly messageId: string;
  /** The root objective this work belongs to. */
  readonly rootId: string;
  readonly objective: string;
  /** The delegation's `task_type`, e.g. `execute_code`. */
  readonly taskType: string;
  readonly constraints: readonly string[];
  /** Beads references the sender pointed at (`beads:task/…`), for the specialist to read if it needs them. */
  readonly contextRefs: readonly string[];
  /** Reads what `contextRefs` point at: each reference's value, null for one that is gone. */
  readContext(): Promise<Readonly<Record<string, unknown>>>;
  /** The delegation's `task_data`, as sent. */
  readonly taskData: Readonly<Record<string, unknown>>;
  /** The JSON Schema the outcome must match (docs/protocol.md#expected-output-schemas), or null. */
  readonly expectedOutputSchema: Readonly<Record<string, unknown>> | null;
  /** The most tokens a prompt built for this work may take (the delegation's `handoff.max_context_tokens`); null or absent for no limit. */
  readonly maxContextTokens?: number | null;
  /**
   * A repair pass (`on_format_mismatch: adapt`, docs/protocol.md#error-policies): what the last
   * answer got wrong against the schema, for a specialist that {@link Specialist.repairs}; null on a first run.
   */
  readonly repair: { readonly mismatches: readonly string[] } | null;
  /** When the run must be done for its answer to arrive in time (ms since the epoch), or null when there is no deadline. */
  readonly deadline: number | null;
  /** 1 for the first try, 2 for the first retry, … */
  readonly attempt: number;
  /** Fires on cancellation or timeout: stop at once and throw (its `reason` will do). */
  readonly signal: AbortSignal;
  /** Reports how far along the run is, `{ percent, note }` (docs/operations.md#progress): at most one a second is kept; never throws. */
  progress(update: ProgressUpdate): void;
  /** The OpenTelemetry context of this hop: the parent for spans the specialist starts (a model call, say). */
  readonly traceContext: Context;
  /**
   * The run's meter, shared by every process: call `reserve(estimate)` before each model call, with
   * the most it may use (`callEstimate(prompt, maxTokens, price)` from `@tierflow/core`); it throws
   * a TierflowError, code `budget_exceeded`, once the run's budget is spent or the call would pass
   * it: make no call then. Settle what it returns after the call, however it ended
   * (`callCharge` says what), and report the same usage in `resources_used.usage`.
   */
  readonly usage: SpecialistUsageMeter;
  /**
   * The node's model calls (docs/operations.md#recording): ask `replay(request)` before each call
   * (a rerun may answer it from its recording) and `record(call)` each call once it ended. The
   * `llm` specialist does both; a specialist that calls a model its own way should too.
   */
  readonly calls: ModelCalls;
}

/** One model call's reservation, as a specialist settles it. */
export interface SpecialistUsageReservation {
  /**
   * What the call used; `estimated` when the endpoint reported none. Its `llm_calls` is ignored
   * (the reservation counted the call) unless 0: a call never sent (`callCharge` of `unsent`), no
   * longer counted. Never throws.
   */
  settle(usage: Usage, estimated?: boolean): Promise<void>;
}

/** What a specialist sees of the run's usage meter. */
export interface SpecialistUsageMeter {
  /** Counts a call about to start and holds `estimate` for it; without one nothing is held, and `record` adds the call's usage after it. */
  reserve(estimate?: Usage): Promise<SpecialistUsageReservation>;
  /** A finished call's tokens and cost, for a call reserved without an estimate; its `llm_calls` is ignored. */
  record(usage: Usage): Promise<void>;
}

/** One output of a specialist; the Fleet decides whether it travels inline or through Beads. */
export interface SpecialistArtifact {
  /** `code`, `analysis`, `test_result`, … */
  readonly artifact_type: string;
  readonly content: string;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
}

/** The statuses a specialist may report; timeout, cancelled and throttled belong to the runtime. */
export const SPECIALIST_STATUSES = ['success', 'partial', 'failed', 'blocked', 'needs_clarification'] as const;
export type SpecialistStatus = (typeof SPECIALIST_STATUSES)[number];

/** How a specialist's run went. Error fields are dropped when the status is `success`. */
export interface SpecialistResult {
  /** `success` when left out. */
  readonly status?: SpecialistStatus | undefined;
  readonly summary: string;
  /** Self-assessed, 0 to 1. */
  readonly confidence: number;
  /** How well the work is supported: NOBEL, PR, IV, PP, HEUR or DISC (docs/protocol.md#evidence-grades). */
  readonly evidence_grade?: EvidenceGrade | undefined;
  /** What the work rests on and misses (docs/protocol.md#handoff-metadata); each goes on the outcome as given. */
  readonly format?: OutputFormat | undefined;
  readonly sources_count?: number | undefined;
  /** ISO 8601 date or date-time of the data behind the work. */
  readonly data_freshness?: string | undefined;
  readonly gaps?: readonly string[] | undefined;
  readonly assumptions?: readonly string[] | undefined;
  readonly artifacts?: readonly SpecialistArtifact[] | undefined;
  readonly error_type?: string | undefined;
  /** For `needs_clarification`: the question to ask; for `blocked`: what the work waits on (docs/protocol.md#blocked-work). */
  readonly error_detail?: string | undefined;
  readonly recoverable?: boolean | undefined;
  /**
   * Models, … reported alongside the Fleet's own `specialist` and `specialist_version`; model
   * calls go in `usage` (tokens_in, tokens_out, cost_usd, llm_calls: docs/protocol.md#usage).
   */
  readonly resources_used?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * A domain specialist the Fleet can run. Throw `TierflowError.retryable(…)` (or any plain Error)
 * for a transient failure the runtime should retry, `TierflowError.permanent(…)` for one it should
 * not, and {@link SpecialistUnavailableError} when the specialist cannot serve at all, so the
 * Dispatcher routes elsewhere.
 */
export interface Specialist {
  /** The name the Dispatcher routes by (`specialist_hint`), e.g. `python-lora`. */
  readonly name: string;
  readonly version: string;
  /** Runs this process admits at once; past it the Fleet answers `throttled` (docs/protocol.md#throttling). */
  readonly maxConcurrent?: number;
  /**
   * It can mend an answer that missed its expected-output schema, given the mismatches
   * (`input.repair`): under `on_format_mismatch: adapt` the Fleet then runs it once more.
   */
  readonly repairs?: boolean;
  /**
   * What decides how it behaves — prompt, model, parameters — as JSON. Its hash is the agent's
   * `prompt_hash` in the registry (docs/protocol.md#target-agents), so a changed prompt is a
   * different agent.
   */
  readonly config?: Readonly<Record<string, unknown>>;
  /** The prompt hash as a lock file gives it (64 hex digits); wins over the hash of `config`. */
  readonly promptHash?: string;
  /**
   * Looks at a handoff before any work starts and may reject it with a reason
   * (docs/protocol.md#explicit-rejection): the Fleet then answers `handoff_rejected` without
   * running it, and the Dispatcher hands the work to the next specialist on its route. Every
   * handoff is accepted when left out. A throw counts as a failure of the run, not a rejection.
   */
  accepts?(input: SpecialistInput): Acceptance | Promise<Acceptance>;
  run(input: SpecialistInput): Promise<SpecialistResult>;
}

/** A specialist's answer to a handoff offered to it: take it, or say why not. */
export type Acceptance = { readonly accept: true } | { readonly accept: false; readonly reason: string };

/** A specialist name: a token of letters, digits, `.`, `_`, `-`, like `python-lora`. */
export const specialistNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, { message: 'must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit' });

/**
 * Checks a specialist's name, version and `run`, and returns it unchanged.
 *
 * ```ts
 * const echo = defineSpecialist({ name: 'echo', version: '1.0.0', run: async ({ objective }) => ({ summary: objective, confidence: 1 }) });
 * ```
 *
 * @throws TierflowError (permanent, code `invalid_specialist`) naming what is wrong.
 */
export function defineSpecialist(spec: Specialist): Specialist {
  const problems: string[] = [];
  const name = specialistNameSchema.safeParse(spec.name);
  if (!name.success) problems.push(`name ${JSON.stringify(spec.name)} ${name.error.issues[0]?.message ?? 'is invalid'}`);
  if (typeof spec.version !== 'string' || spec.version.trim() === '') problems.push('version must be a non-empty string');
  if (typeof spec.run !== 'function') problems.push('run must be a function');
  if (spec.accepts !== undefined && typeof spec.accepts !== 'function') problems.push('accepts must be a function');
  if (spec.promptHash !== undefined && !/^[0-9a-f]{64}$/.test(spec.promptHash)) problems.push('promptHash must be a SHA-256 hash: 64 lowercase hex digits');
  if (spec.config !== undefined && !isJsonConfig(spec.config)) problems.push('config must be a JSON object');
  if (problems.length > 0) throw TierflowError.permanent(`invalid specialist: ${problems.join('; ')}`, { code: 'invalid_specialist' });
  return spec;
}

function isJsonConfig(config: unknown): boolean {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return false;
  try {
    canonicalJson(config);
    return true;
  } catch {
    return false;
  }
}

/** The specialist is busy now and cannot wait for room in time: the Fleet answers `throttled`, so the Dispatcher backs off or routes elsewhere. */
export class SpecialistThrottledError extends TierflowError {
  override readonly name = 'SpecialistThrottledError';
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super(message, { code: ERROR_TYPES.throttled, retryable: false, cause: options.cause });
  }
}

/** The specialist cannot serve (not loaded, out of capacity for good): the Dispatcher should route elsewhere. Never retried here. */
export class SpecialistUnavailableError extends TierflowError {
  override readonly name = 'SpecialistUnavailableError';
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super(message, { code: ERROR_TYPES.specialistUnavailable, retryable: false, cause: options.cause });
  }
}

/** True for a {@link SpecialistUnavailableError}, also one from another copy of this package (matched by code). */
export function isSpecialistUnavailable(error: unknown): error is TierflowError {
  return error instanceof SpecialistUnavailableError || (isTierflowError(error) && error.code === ERROR_TYPES.specialistUnavailable);
}
