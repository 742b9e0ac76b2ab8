import { formatValidationError, TierflowError, validateWith, type JsonObject } from '@tierflow/protocol';
import { ACCEPTANCE_CRITERIA_KEY, acceptanceCriteriaSchema, planSchema, type Plan } from '../model/objective.js';
import type { TierContext } from './handler.js';

/** What a planner is asked: the delegation it plans for, and what it may read or obey while it works. */
export interface PlanRequest {
  readonly objective: string;
  readonly taskType: string;
  readonly constraints: readonly string[];
  /** The delegation's `task_data` (with a `plan` only on a revision: a delegation with one is not planned otherwise). */
  readonly taskData: JsonObject;
  /** Beads references the delegation points at, readable through `beads`. */
  readonly contextRefs: readonly string[];
  readonly beads: TierContext['beads'];
  /** When the plan must be ready for the tier to answer in time (ms since the epoch), or null. */
  readonly deadline: number | null;
  /**
   * When the work is due, as the objective said (`deadline_hint`: an ISO 8601 date or date-time),
   * for the plan to fit; guidance, not enforced. Null or absent without one.
   */
  readonly deadlineHint?: string | null;
  /** What the work must satisfy, as the objective said (`task_data.acceptance_criteria`); empty or absent without any. */
  readonly acceptanceCriteria?: readonly string[];
  /** The delegation's `handoff.max_context_tokens`: a planner that calls a model keeps its prompt under it (docs/protocol.md#handoff-metadata). */
  readonly maxContextTokens?: number | null;
  /** Fires on cancellation or timeout: stop at once and throw. */
  readonly signal: AbortSignal;
  readonly log: TierContext['log'];
  /** The run's usage meter: a planner that calls a model reserves each call and records its tokens, like a specialist. */
  readonly usage: TierContext['usage'];
  /** The node's model calls: a planner that calls a model asks for a replay first and records each call, like a specialist. */
  readonly calls: TierContext['calls'];
  /**
   * Set when the Architect revises (docs/protocol.md#revisions): the round that fell short, what
   * failed and why, and what succeeded. Absent when the delegation is planned for the first time.
   */
  readonly revision?: RevisionContext;
}

/** A subtask that did not succeed in the round being revised. */
export interface RevisionFailure {
  /** 1-based, within the revision's `plan` (1 for an objective that went down whole). */
  readonly subtask_index: number;
  /** The subtask's objective. */
  readonly description: string;
  readonly task_type: string | null;
  /** The specialist whose answer came last; '' when the round says none (the Dispatcher failed as a whole). */
  readonly specialist: string;
  /** Every specialist the round sent it to, in order (re-routes included); empty when unknown. */
  readonly tried: readonly string[];
  readonly error_type: string | null;
  /** What went wrong, in the outcome's words. */
  readonly summary: string;
  /** How often the round sent it (re-routes and retries included); 0 for one never sent, its dependencies having failed. */
  readonly attempts: number;
}

/** A subtask that succeeded in the round being revised: its work is kept, whatever the new plan says. */
export interface RevisionSuccess {
  readonly subtask_index: number;
  readonly specialist: string;
  readonly summary: string;
}

/** What a planner is told when the Architect revises: the failure in hand. */
export interface RevisionContext {
  /** The revision about to run: 1 for the first. */
  readonly round: number;
  /** The plan the round ran, that the indices below refer to; null when the objective went down whole. */
  readonly plan: Plan | null;
  /**
   * The subtasks a new plan takes the place of, ascending: the failed ones and those they take
   * their input from (docs/protocol.md#subtask-dependencies), which must run again with them.
   */
  readonly redo: readonly number[];
  readonly failed: readonly RevisionFailure[];
  readonly succeeded: readonly RevisionSuccess[];
}

/**
 * Makes the plan for a delegation that came without one: the Architect's `planner` and the
 * Dispatcher's `decomposer`. It may return anything; the tier checks it against the plan schema.
 * Throw `TierflowError.permanent(…, { code: 'invalid_plan' })` for a plan that cannot be made.
 *
 * The Architect asks its planner again when it revises, with `request.revision` set: the plan it
 * returns then is for the work of `revision.redo` only (what succeeded is kept), and may change
 * the strategy, the subtasks and the specialists; null (or undefined) leaves the revision to the
 * Architect's own rule, which sends those subtasks again to other specialists.
 */
export type Planner = (request: PlanRequest) => Promise<unknown>;

/**
 * Asks `planner` for the plan of the context's delegation and checks what it returns.
 *
 * @throws TierflowError (permanent, code `invalid_plan`) naming every problem with the plan; what the planner throws.
 */
export async function planWith(planner: Planner, context: TierContext): Promise<Plan> {
  return checkedPlan(await planner(planRequest(context)), '$plan');
}

/**
 * Asks `planner` for a new plan of a revision, with the failure in hand; null when it leaves the
 * revision to the tier (it returned null or undefined).
 *
 * @throws TierflowError (permanent, code `invalid_plan`) naming every problem with the plan; what the planner throws.
 */
export async function replanWith(planner: Planner, context: TierContext, revision: RevisionContext): Promise<Plan | null> {
  const proposed = await planner({ ...planRequest(context), revision });
  return proposed === null || proposed === undefined ? null : checkedPlan(proposed, '$plan');
}

function planRequest(context: TierContext): PlanRequest {
  const { payload } = context.assignment;
  return {
    objective: payload.objective,
    taskType: payload.task_type,
    constraints: payload.constraints,
    taskData: payload.task_data,
    contextRefs: payload.context_refs,
    beads: context.beads,
    deadline: context.answerBy,
    deadlineHint: payload.deadline_hint,
    acceptanceCriteria: acceptanceCriteriaOf(payload.task_data),
    maxContextTokens: payload.handoff?.max_context_tokens ?? null,
    signal: context.signal,
    log: context.log,
    usage: context.usage,
    calls: context.calls,
  };
}

/** The acceptance criteria a delegation's `task_data` carries; none when they are missing or out of shape. Pure. */
export function acceptanceCriteriaOf(taskData: Readonly<Record<string, unknown>>): string[] {
  const parsed = acceptanceCriteriaSchema.safeParse(taskData[ACCEPTANCE_CRITERIA_KEY]);
  return parsed.success ? parsed.data : [];
}

/**
 * `value` as a {@link Plan}, or an error whose message names each problem at `root` (`$.task_data.plan`,
 * say). Pure.
 *
 * @throws TierflowError (permanent, code `invalid_plan`).
 */
export function checkedPlan(value: unknown, root: string): Plan {
  const result = validateWith(planSchema, value);
  if (result.ok) return result.value;
  const errors = result.errors.map((error) => formatValidationError({ ...error, path: error.path.replace(/^\$/, root) }));
  throw TierflowError.permanent(`invalid plan: ${errors.join('; ')}`, { code: 'invalid_plan' });
}
