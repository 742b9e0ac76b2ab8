import { resolveRetryOptions, type Boundaries, type RetryOptions } from '@tierflow/core';
import { formatValidationError, TierflowError, validateWith } from '@tierflow/protocol';
import { RUNTIME_RANGES, wholeNumber, type Planner } from '@tierflow/runtime/policy';
import { z } from 'zod';

/** The task_type key whose route list serves every task type without one of its own. */
export const FALLBACK_ROUTE = '*';

/**
 * The recommended Fleet timeout (docs/protocol.md#timeouts): 5 minutes, what a model call may
 * take (a long answer at tens of tokens a second, a reasoning model, a busy or local endpoint),
 * with room for its tries; a leaf that hangs is still cut (docs/operations.md#default-deadlines).
 */
export const DEFAULT_FLEET_TIMEOUT_MS = 300_000;

/** Every task type goes to the built-in simulated specialist unless told otherwise. */
export const DEFAULT_ROUTING = { [FALLBACK_ROUTE]: ['sim'] } as const satisfies Record<string, readonly string[]>;

const routeListSchema = z.array(z.string().min(1)).min(1, { message: 'a route needs at least one specialist' });

/** What a deployment may set; the rest has defaults. */
export const dispatcherOptionsSchema = z.strictObject({
  /** task_type → [primary, ...alternates]; `'*'` is the fallback. Merged over {@link DEFAULT_ROUTING}. */
  routing: z.record(z.string().min(1), routeListSchema).optional(),
  /** The default timeout of what it delegates: bounded as TIERFLOW_FLEET_TIMEOUT_MS is, for it becomes a timer. */
  fleetTimeoutMs: wholeNumber(RUNTIME_RANGES.delegationTimeoutMs).optional(),
  /** Back-off for a throttled subtask sent to the same specialist again: tries, base and cap. */
  throttleRetry: z.strictObject({ attempts: z.int().positive().optional(), baseDelayMs: z.int().nonnegative().optional(), maxDelayMs: z.int().nonnegative().optional() }).optional(),
  /** Splits a delegation that comes without `task_data.plan`; without one, such a delegation is one subtask. */
  decomposer: z.custom<Planner>((value) => typeof value === 'function', { message: 'must be a function' }).optional(),
  /** Who may hand work to whom (docs/protocol.md#collaboration-boundaries): routing picks only specialists within them. */
  boundaries: z.record(z.string().min(1), z.array(z.string().min(1))).optional(),
});
export type DispatcherOptionsInput = z.input<typeof dispatcherOptionsSchema>;

/** The Dispatcher's policy options with defaults filled in. */
export interface ResolvedDispatcherOptions {
  /** Always holds a non-empty `'*'` list. */
  readonly routing: Readonly<Record<string, readonly string[]>>;
  readonly fleetTimeoutMs: number;
  readonly throttleRetry: RetryOptions;
  readonly decomposer: Planner | null;
  readonly boundaries: Boundaries | null;
}

/** Throttled subtasks are tried 5 times in all, backing off from 100 ms up to 2 s. */
export const DEFAULT_THROTTLE_RETRY = { attempts: 5, baseDelayMs: 100, maxDelayMs: 2_000, jitter: 0.5 } as const;

/**
 * Fills defaults and checks the options. A `routing` without `'*'` keeps the default fallback, so
 * every task type has somewhere to go.
 *
 * @throws TierflowError (permanent, code `invalid_config`) listing every problem.
 */
export function resolveDispatcherOptions(input: DispatcherOptionsInput = {}): ResolvedDispatcherOptions {
  const result = validateWith(dispatcherOptionsSchema, input);
  if (!result.ok) {
    throw TierflowError.permanent(`invalid dispatcher options: ${result.errors.map(formatValidationError).join('; ')}`, { code: 'invalid_config' });
  }
  return {
    routing: { ...DEFAULT_ROUTING, ...result.value.routing },
    fleetTimeoutMs: result.value.fleetTimeoutMs ?? DEFAULT_FLEET_TIMEOUT_MS,
    throttleRetry: resolveRetryOptions({ ...DEFAULT_THROTTLE_RETRY, ...result.value.throttleRetry }),
    decomposer: result.value.decomposer ?? null,
    boundaries: result.value.boundaries ?? null,
  };
}
