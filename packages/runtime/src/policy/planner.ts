import { formatValidationError, TierflowError, validateWith, type JsonObject } from '@tierflow/protocol';
import { planSchema, type Plan } from '../model/objective.js';
import type { TierContext } from './handler.js';

/** What a planner is asked: the delegation it plans for, and what it may read or obey while it works. */
export interface PlanRequest {
  readonly objective: string;
  readonly taskType: string;
  readonly constraints: readonly string[];
  /** The delegation's `task_data` (without a `plan`: a delegation with one is not planned again). */
  readonly taskData: JsonObject;
  /** Beads references the delegation points at, readable through `beads`. */
  readonly contextRefs: readonly string[];
  readonly beads: TierContext['beads'];
  /** When the plan must be ready for the tier to answer in time (ms since the epoch), or null. */
  readonly deadline: number | null;
  /** Fires on cancellation or timeout: stop at once and throw. */
  readonly signal: AbortSignal;
  readonly log: TierContext['log'];
  /** The run's usage meter: a planner that calls a model reserves each call and records its tokens, like a specialist. */
  readonly usage: TierContext['usage'];
  /** The node's model calls: a planner that calls a model asks for a replay first and records each call, like a specialist. */
  readonly calls: TierContext['calls'];
}

/**
 * Makes the plan for a delegation that came without one: the Architect's `planner` and the
 * Dispatcher's `decomposer`. It may return anything; the tier checks it against the plan schema.
 * Throw `TierflowError.permanent(…, { code: 'invalid_plan' })` for a plan that cannot be made.
 */
export type Planner = (request: PlanRequest) => Promise<unknown>;

/**
 * Asks `planner` for the plan of the context's delegation and checks what it returns.
 *
 * @throws TierflowError (permanent, code `invalid_plan`) naming every problem with the plan; what the planner throws.
 */
export async function planWith(planner: Planner, context: TierContext): Promise<Plan> {
  const { payload } = context.assignment;
  const proposed = await planner({
    objective: payload.objective,
    taskType: payload.task_type,
    constraints: payload.constraints,
    taskData: payload.task_data,
    contextRefs: payload.context_refs,
    beads: context.beads,
    deadline: context.answerBy,
    signal: context.signal,
    log: context.log,
    usage: context.usage,
    calls: context.calls,
  });
  return checkedPlan(proposed, '$plan');
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
