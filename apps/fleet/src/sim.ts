import { answerTo, ERROR_TYPES, unblockNoteFor, TierflowError, upstreamOf, type UpstreamWork } from '@tierflow/protocol';
import { abortableDelay } from './abortable-delay.js';
import { parseSimConfig, type SimConfig } from './sim-config.js';
import { defineSpecialist, SpecialistUnavailableError, type SpecialistArtifact, type SpecialistInput, type SpecialistResult, type SpecialistStatus } from './specialist.js';

/** The name to put in `specialist_hint` to reach the simulator. */
export const SIM_SPECIALIST = 'sim';

// What each scripted non-success status reports; the compiler checks every status is here.
const SIM_ERRORS = {
  partial: { error_type: 'sim_partial', recoverable: true },
  failed: { error_type: 'sim_failed', recoverable: true }, // recoverable, so a higher tier may revise
  blocked: { error_type: 'sim_blocked', recoverable: true },
  needs_clarification: { error_type: ERROR_TYPES.ambiguousRequest, recoverable: true },
} as const satisfies Record<Exclude<SpecialistStatus, 'success'>, { error_type: string; recoverable: boolean }>;

const FILLER = 'tierflow sim output. ';

/** `bytes` ASCII characters of filler text: exactly that many bytes of UTF-8. */
export function simContent(bytes: number): string {
  return FILLER.repeat(Math.ceil(bytes / FILLER.length)).slice(0, bytes);
}

/**
 * A scriptable specialist for demos, tests and drills: `task_data.sim` says what it does (see
 * {@link simConfigSchema}). With no script it succeeds at once with confidence 0.9.
 *
 * ```json
 * { "specialist_hint": "sim", "task_data": { "sim": { "delay_ms": 200, "fail_times": 1, "output_bytes": 2048 } } }
 * ```
 *
 * With `ask`, it asks a person first: `{ "sim": { "ask": "Which region?" } }` answers
 * `needs_clarification` until its delegation carries the answer (docs/protocol.md#clarification).
 * With `block`, it waits on something outside the run: `{ "sim": { "block": "Waiting for the API key" } }`
 * answers `blocked` until its delegation carries an unblock note for it (docs/protocol.md#blocked-work).
 */
export const simSpecialist = defineSpecialist({
  name: SIM_SPECIALIST,
  version: '1.0.0',
  // Its behaviour is its script format: part of its identity in the agent registry.
  config: { kind: 'simulator', script: 'task_data.sim' },
  // Scripted: `sim.repaired` says how it answers a repair pass.
  repairs: true,
  // An invalid script is not a reason to reject: `run` reports it as the failure it is.
  accepts: (input) => {
    const reason = simRejection(input.taskData);
    return reason === undefined ? { accept: true } : { accept: false, reason };
  },
  run: runSim,
});

function simRejection(taskData: Readonly<Record<string, unknown>>): string | undefined {
  try {
    return parseSimConfig(taskData).reject;
  } catch {
    return undefined;
  }
}

async function runSim(input: SpecialistInput): Promise<SpecialistResult> {
  const script = parseSimConfig(input.taskData);
  // Asked again, with the mismatches or a concern: as scripted for that.
  const again = input.repair ? script.repaired : typeof input.taskData.concern === 'string' ? script.concerned : undefined;
  const config: SimConfig = again
    ? {
        ...script,
        ...(again.status === undefined ? {} : { status: again.status }),
        ...(again.confidence === undefined ? {} : { confidence: again.confidence }),
        ...(again.output_bytes === undefined ? {} : { output_bytes: again.output_bytes }),
      }
    : script;
  if (config.unavailable) throw new SpecialistUnavailableError('sim: scripted as unavailable');
  if (config.delay_ms > 0) await simDelay(config.delay_ms, input);
  input.signal.throwIfAborted();
  if (config.permanent_error) throw TierflowError.permanent('sim: scripted permanent failure', { code: 'sim_permanent' });
  if (input.attempt <= config.fail_times) {
    throw TierflowError.retryable(`sim: transient failure ${input.attempt} of ${config.fail_times}`, { code: 'sim_transient' });
  }
  return withUpstream(scriptedResult(config, input), upstreamOf(input.taskData));
}

function scriptedResult(config: SimConfig, input: SpecialistInput): SpecialistResult {
  if (config.block !== undefined) {
    const note = unblockNoteFor(input.taskData, config.block);
    if (note === null) return simResult({ ...config, status: 'blocked' }, input.attempt);
    const result = answeredResult({ ...config, block: undefined }, input);
    return {
      ...result,
      summary: `${result.summary}, unblocked${note ? `: ${note}` : ''}`,
      artifacts: [...(result.artifacts ?? []), { artifact_type: 'text', content: note || '(no note)', metadata: { blocker: config.block } }],
    };
  }
  return answeredResult(config, input);
}

function answeredResult(config: SimConfig, input: SpecialistInput): SpecialistResult {
  if (config.ask === undefined) return simResult(config, input.attempt);
  const answer = answerTo(input.taskData, config.ask);
  if (answer === null) return simResult({ ...config, status: 'needs_clarification', question: config.ask }, input.attempt);
  const result = simResult(config, input.attempt);
  return { ...result, summary: `${result.summary}, told: ${answer}`, artifacts: [...(result.artifacts ?? []), { artifact_type: 'text', content: answer, metadata: { question: config.ask } }] };
}

/** The artifact type of what a sim was handed: lets demos and tests see a handoff (docs/protocol.md#subtask-dependencies). */
export const SIM_UPSTREAM_ARTIFACT = 'upstream';

/**
 * A result that says what upstream work the sim was given, when it was given any: its summary
 * names the subtasks, and one more artifact lists each piece of work as received. Unchanged without.
 */
function withUpstream(result: SpecialistResult, upstream: readonly UpstreamWork[]): SpecialistResult {
  if (upstream.length === 0) return result;
  const received = upstream.map((work) => ({ subtask_index: work.subtask_index, specialist: work.specialist, summary: work.summary, artifacts: work.artifacts.length }));
  return {
    ...result,
    summary: `${result.summary}, given the work of subtask${upstream.length === 1 ? '' : 's'} ${upstream.map((work) => work.subtask_index).join(', ')}`,
    artifacts: [...(result.artifacts ?? []), { artifact_type: SIM_UPSTREAM_ARTIFACT, content: JSON.stringify(received) }],
  };
}

/** Steps of a long delay: a progress report after each (what a real long task would send). */
const SIM_PROGRESS_STEP_MS = 500;

/** Waits `ms`, reporting how far along it is every half second when that is long enough to watch. */
async function simDelay(ms: number, input: SpecialistInput): Promise<void> {
  if (ms < 2 * SIM_PROGRESS_STEP_MS) return abortableDelay(ms, input.signal);
  for (let waited = 0; waited < ms; waited += SIM_PROGRESS_STEP_MS) {
    await abortableDelay(Math.min(SIM_PROGRESS_STEP_MS, ms - waited), input.signal);
    const done = Math.min(ms, waited + SIM_PROGRESS_STEP_MS);
    if (done < ms) input.progress({ percent: Math.round((100 * done) / ms), note: `sim: ${done} of ${ms} ms` });
  }
}

function simResult(config: SimConfig, attempt: number): SpecialistResult {
  const artifacts: SpecialistArtifact[] = config.output_bytes === undefined ? [] : [{ artifact_type: 'text', content: simContent(config.output_bytes), metadata: { bytes: config.output_bytes } }];
  const did = [
    `${config.status} on attempt ${attempt}`,
    ...(config.delay_ms > 0 ? [`after ${config.delay_ms} ms`] : []),
    ...(config.output_bytes === undefined ? [] : [`with ${config.output_bytes} bytes of output`]),
  ].join(' ');
  const base = {
    status: config.status,
    summary: `sim: ${did}`,
    confidence: config.confidence,
    ...(config.evidence_grade === undefined ? {} : { evidence_grade: config.evidence_grade }),
    ...(config.format === undefined ? {} : { format: config.format }),
    ...(config.sources_count === undefined ? {} : { sources_count: config.sources_count }),
    ...(config.data_freshness === undefined ? {} : { data_freshness: config.data_freshness }),
    ...(config.gaps === undefined ? {} : { gaps: config.gaps }),
    ...(config.assumptions === undefined ? {} : { assumptions: config.assumptions }),
    artifacts,
    resources_used: { delay_ms: config.delay_ms },
  };
  if (config.status === 'success') return base;
  const { error_type, recoverable } = SIM_ERRORS[config.status];
  return { ...base, error_type, error_detail: errorDetail(config), recoverable };
}

function errorDetail(config: SimConfig): string {
  if (config.status === 'needs_clarification') return config.question ?? 'sim: which variant is wanted?';
  if (config.status === 'blocked' && config.block !== undefined) return config.block;
  return `sim: scripted ${config.status}`;
}
