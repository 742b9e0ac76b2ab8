import { formatValidationError, TierflowError, validateWith } from '@tierflow/protocol';
import { RUNTIME_RANGES, wholeNumber, type Planner } from '@tierflow/runtime/policy';
import { z } from 'zod';

/**
 * The recommended Dispatcher timeout (docs/protocol.md#timeouts): 12 minutes, two Fleet
 * deadlines (a dependent step after another, or a leaf re-routed) and a model call to decompose.
 */
export const DEFAULT_DISPATCHER_TIMEOUT_MS = 720_000;

/** One strategy revision by default: a second failure of the same work goes up. */
export const DEFAULT_MAX_REVISIONS = 1;

/** What a deployment may set; the rest has defaults. */
export const architectOptionsSchema = z.strictObject({
  /** How many times the Architect re-delegates the subtasks that fell short; 0 never revises. */
  maxRevisions: z.int().nonnegative().optional(),
  /** The default timeout of what it delegates: bounded as TIERFLOW_DISPATCHER_TIMEOUT_MS is, for it becomes a timer. */
  dispatcherTimeoutMs: wholeNumber(RUNTIME_RANGES.delegationTimeoutMs).optional(),
  /** Plans an objective that comes without `task_data.plan`; without one, such an objective goes down whole. */
  planner: z.custom<Planner>((value) => typeof value === 'function', { message: 'must be a function' }).optional(),
});
export type ArchitectOptionsInput = z.input<typeof architectOptionsSchema>;

/** The Architect's policy options with defaults filled in. */
export interface ResolvedArchitectOptions {
  readonly maxRevisions: number;
  readonly dispatcherTimeoutMs: number;
  readonly planner: Planner | null;
}

/**
 * Fills defaults and checks the options.
 *
 * @throws TierflowError (permanent, code `invalid_config`) listing every problem.
 */
export function resolveArchitectOptions(input: ArchitectOptionsInput = {}): ResolvedArchitectOptions {
  const result = validateWith(architectOptionsSchema, input);
  if (!result.ok) {
    throw TierflowError.permanent(`invalid architect options: ${result.errors.map(formatValidationError).join('; ')}`, { code: 'invalid_config' });
  }
  return {
    maxRevisions: result.value.maxRevisions ?? DEFAULT_MAX_REVISIONS,
    dispatcherTimeoutMs: result.value.dispatcherTimeoutMs ?? DEFAULT_DISPATCHER_TIMEOUT_MS,
    planner: result.value.planner ?? null,
  };
}
