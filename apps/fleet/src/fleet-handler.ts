import { ERROR_TYPES, fastSafeParse, isJsonObject, isTierflowError, outcomePayloadSchema, TierflowError } from '@tierflow/protocol';
import { z } from 'zod';
import { checkOutput } from '@tierflow/core';
import type { ProgressUpdate, Step, TierContext, TierHandler } from '@tierflow/runtime';
import { rejectedOutcome, rejectionOf } from './acceptance.js';
import { agentRefusal, type AgentRefusal } from './agent-check.js';
import type { SpecialistRegistry } from './registry.js';
import { fleetReport, type FleetOutcome } from './specialist-outcome.js';
import { checkSpecialistResult, type CheckedSpecialistResult } from './specialist-result.js';
import { isSpecialistUnavailable, SpecialistThrottledError, type Specialist, type SpecialistInput } from './specialist.js';

/** Options of {@link fleetHandler}. */
export interface FleetHandlerOptions {
  /** Expiry of outputs and logs written to Beads, in ms; the store's default (24 h) when left out. */
  readonly outputTtlMs?: number;
  /**
   * Record each completed run under `execution/finished/<id>`, and a second completion of the
   * same message under `execution/duplicates/<id>` with a warning: how a drill (or an operator)
   * sees a handler that ran to completion twice, e.g. after a crash between the run and its answer.
   */
  readonly trackCompletions?: boolean;
}

/**
 * The Fleet's policy: run the specialist the Dispatcher named in `specialist_hint`, store large
 * outputs and an execution log in Beads in one write, and report. A specialist that throws
 * {@link SpecialistUnavailableError}, or no specialist named, is reported as a recoverable
 * `failed` outcome with `error_type: 'specialist_unavailable'`, so the Dispatcher re-routes. An
 * agent not in the registry (`unknown_agent`), or not the version and prompt hash the delegation
 * pins in `target_agent` (`agent_hash_mismatch`), is refused unrecoverably without running
 * anything (docs/protocol.md#target-agents). A specialist that rejects the handoff
 * (`accepts`) is answered `handoff_rejected`, recoverable, so the Dispatcher routes on
 * (docs/protocol.md#explicit-rejection). Any other error propagates: the runtime retries
 * transient ones and reports permanent ones.
 *
 * @throws TierflowError (permanent, code `invalid_config`) for an `outputTtlMs` that is not a whole number ≥ 1.
 */
export function fleetHandler(registry: SpecialistRegistry, options: FleetHandlerOptions = {}): TierHandler {
  const { outputTtlMs } = options;
  if (outputTtlMs !== undefined && !(Number.isSafeInteger(outputTtlMs) && outputTtlMs >= 1)) {
    throw TierflowError.permanent(`outputTtlMs (${outputTtlMs}) must be a whole number of milliseconds, 1 or more`, { code: 'invalid_config' });
  }
  // Runs in flight per specialist, in this process: the limit a specialist declares is per process.
  const inFlight = new Map<string, number>();
  return {
    tier: 'SPECIALIZED_FLEET',
    start: async (context) => {
      const { payload } = context.assignment;
      const refusal = agentRefusal(payload, registry);
      if (refusal) return refused(context, refusal, registry);
      const name = payload.target_agent?.agent_id ?? payload.specialist_hint;
      const specialist = name === null ? undefined : registry.get(name);
      if (specialist === undefined) return unavailable(context, name, 'no specialist_hint in the delegation', registry);
      // Only a repeated delivery can find a finished run's record: a first one skips the read.
      const recorded = context.redelivered ? await recordedOutcome(context) : null;
      if (recorded) {
        context.log.info('answering from the recorded outcome of a run that finished before its worker died', { id: context.assignment.id });
        return { kind: 'outcome', outcome: recorded };
      }
      // Asked before it takes a slot: a rejected handoff runs nothing.
      const rejection = await rejectionOf(specialist, specialistInput(context, null));
      if (rejection !== null) {
        context.log.info('the specialist rejected the handoff', { id: context.assignment.id, specialist: specialist.name, reason: rejection });
        return { kind: 'outcome', outcome: rejectedOutcome(specialist, rejection) };
      }
      const running = inFlight.get(specialist.name) ?? 0;
      if (specialist.maxConcurrent !== undefined && running >= specialist.maxConcurrent) {
        const summary = `${specialist.name} is at its limit of ${specialist.maxConcurrent} concurrent runs; try later`;
        return throttled(specialist, summary, `${specialist.name} at its concurrency limit (${specialist.maxConcurrent})`);
      }
      inFlight.set(specialist.name, running + 1);
      try {
        const step = await runSpecialist(context, specialist, registry, outputTtlMs);
        if (options.trackCompletions) await trackCompletion(context);
        return step;
      } finally {
        inFlight.set(specialist.name, (inFlight.get(specialist.name) ?? 1) - 1);
      }
    },
    // Poison work that had finished before its worker's last death answers from its record.
    recorded: recordedOutcome,
  };
}

/** Where a finished run's outcome is recorded, beside its outputs. */
export function completionKey(messageId: string): string {
  return `execution/completions/${messageId}`;
}

/** What a completion record must hold to be answered from: an outcome payload, less what the runtime adds. */
const completionSchema = z.looseObject({
  outcome: z.custom<FleetOutcome>((value) => isJsonObject(value) && fastSafeParse(outcomePayloadSchema, { execution_time_ms: 0, ...value }).success, 'not an outcome'),
});

/**
 * The outcome a finished run recorded, or null. A record that cannot be read (not JSON, or not an
 * outcome) is logged and ignored: the specialist runs again rather than the Fleet answering garbage.
 */
async function recordedOutcome(context: TierContext): Promise<FleetOutcome | null> {
  const key = completionKey(context.assignment.id);
  try {
    const record = await context.beads.get(key, completionSchema);
    return record ? record.outcome : null;
  } catch (error) {
    if (!isTierflowError(error) || (error.code !== 'beads_corrupt' && error.code !== 'beads_invalid_value')) throw error;
    context.log.warn('ignored a completion record that cannot be read; running again', { key, reason: error.message });
    return null;
  }
}

async function trackCompletion(context: TierContext): Promise<void> {
  const { id } = context.assignment;
  const at = new Date(context.now()).toISOString();
  if (await context.beads.setIfAbsent(`execution/finished/${id}`, { at, attempt: context.attempt })) return;
  context.log.warn('a message was executed to completion twice', { id });
  await context.beads.set(`execution/duplicates/${id}`, { at, attempt: context.attempt });
}

/** At its concurrency limit: the Dispatcher backs off and tries again, or routes elsewhere. */
function throttled(specialist: Specialist, summary: string, detail: string): Step {
  const outcome: FleetOutcome = {
    status: 'throttled',
    summary,
    confidence: 0,
    error_type: ERROR_TYPES.throttled,
    error_detail: detail,
    recoverable: true,
    resources_used: { specialist: specialist.name },
    result_refs: [],
    artifacts: [],
  };
  return { kind: 'outcome', outcome };
}

async function readRefs(context: TierContext, refs: readonly string[]): Promise<Record<string, unknown>> {
  const values = refs.length === 0 ? [] : await context.beads.getMany(refs);
  return Object.fromEntries(refs.map((ref, i) => [ref, values[i] ?? null]));
}

async function runSpecialist(context: TierContext, specialist: Specialist, registry: SpecialistRegistry, ttlMs: number | undefined): Promise<Step> {
  const { assignment } = context;
  const startedAt = context.now();
  let result: CheckedSpecialistResult;
  try {
    result = checkSpecialistResult(specialist.name, await specialist.run(specialistInput(context, null)));
    const mismatches = repairable(context, specialist, result, startedAt);
    if (mismatches) {
      context.log.info('the answer misses its expected-output schema: one repair pass', { id: assignment.id, specialist: specialist.name, mismatches: mismatches.length });
      result = checkSpecialistResult(specialist.name, await specialist.run(specialistInput(context, { mismatches })));
    }
  } catch (error) {
    if (isSpecialistUnavailable(error)) return unavailable(context, specialist.name, error.message, registry);
    if (error instanceof SpecialistThrottledError) return throttled(specialist, `${specialist.name} is busy; try later`, error.message);
    throw error;
  }
  const report = fleetReport({
    messageId: assignment.id,
    specialist,
    attempt: context.attempt,
    result,
    startedAt,
    finishedAt: context.now(),
    ...(ttlMs === undefined ? {} : { ttlMs }),
  });
  // One batch: outputs, log and the recorded outcome land together or not at all, before the
  // outcome points at them. A worker that dies after this batch but before it answers is
  // replaced by one that answers from the record instead of running the specialist again.
  await context.beads.setMany([...report.writes, { key: completionKey(assignment.id), value: { outcome: report.outcome, attempt: context.attempt }, ...(ttlMs === undefined ? {} : { ttlMs }) }]);
  return { kind: 'outcome', outcome: report.outcome };
}

/**
 * The mismatches of a first answer worth a repair pass (docs/protocol.md#error-policies): under
 * `on_format_mismatch: adapt`, from a specialist that repairs, an answer offered as done that
 * misses its schema. Null otherwise: the runtime's own check then answers as the policy says.
 */
function repairable(context: TierContext, specialist: Specialist, result: CheckedSpecialistResult, startedAt: number): readonly string[] | null {
  const schema = context.assignment.payload.expected_output_schema;
  if (!schema || context.errorPolicy.on_format_mismatch !== 'adapt' || !specialist.repairs) return null;
  // The payload the runtime will check, as near as the Fleet can tell before it is built.
  const { outcome } = fleetReport({ messageId: context.assignment.id, specialist, attempt: context.attempt, result, startedAt, finishedAt: context.now() });
  if (outcome.status !== 'success' && outcome.status !== 'partial') return null;
  const check = checkOutput(schema, { ...outcome, execution_time_ms: context.now() - startedAt });
  return !check.ok && check.kind === ERROR_TYPES.formatMismatch ? check.mismatches : null;
}

function specialistInput(context: TierContext, repair: SpecialistInput['repair']): SpecialistInput {
  const { assignment } = context;
  return {
    messageId: assignment.id,
    rootId: assignment.rootId,
    objective: assignment.payload.objective,
    taskType: assignment.payload.task_type,
    constraints: assignment.payload.constraints,
    contextRefs: assignment.payload.context_refs,
    readContext: () => readRefs(context, assignment.payload.context_refs),
    taskData: assignment.payload.task_data,
    expectedOutputSchema: assignment.payload.expected_output_schema ?? null,
    maxContextTokens: assignment.payload.handoff?.max_context_tokens ?? null,
    deadline: context.answerBy,
    attempt: context.attempt,
    signal: context.signal,
    traceContext: context.traceContext,
    usage: context.usage,
    calls: context.calls,
    progress: (update: ProgressUpdate) => context.progress(update),
    repair,
  };
}

function unavailable(context: TierContext, name: string | null, detail: string, registry: SpecialistRegistry): Step {
  context.log.warn('specialist unavailable', { id: context.assignment.id, specialist: name, detail });
  const outcome: FleetOutcome = {
    status: 'failed',
    summary: `specialist ${name === null ? '(none named)' : JSON.stringify(name)} is unavailable in this fleet`,
    confidence: 0,
    error_type: ERROR_TYPES.specialistUnavailable,
    error_detail: detail,
    recoverable: true,
    result_refs: [],
    artifacts: [],
    resources_used: { specialist_requested: name, specialists_available: registry.names() },
  };
  return { kind: 'outcome', outcome };
}

/** Not the agent the delegation is for: nothing runs, and sending the same delegation again cannot help. */
function refused(context: TierContext, refusal: AgentRefusal, registry: SpecialistRegistry): Step {
  context.log.warn('delegation refused: agent verification failed', { id: context.assignment.id, error_type: refusal.error_type, detail: refusal.detail });
  const outcome: FleetOutcome = {
    status: 'failed',
    summary: `refused: ${refusal.detail}`,
    confidence: 0,
    error_type: refusal.error_type,
    error_detail: refusal.detail,
    recoverable: false,
    result_refs: [],
    artifacts: [],
    resources_used: { agent_requested: context.assignment.payload.target_agent ?? context.assignment.payload.specialist_hint, agents_registered: registry.names() },
  };
  return { kind: 'outcome', outcome };
}
