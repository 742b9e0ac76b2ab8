import { DEFAULT_ROUTING_OBJECTIVE, resolveRetryOptions, ROUTING_MODES, seededRandom, type Boundaries, type RetryOptions, type RoutingMode, type RoutingObjective } from '@tierflow/core';
import { formatValidationError, TierflowError, validateWith, type AgentIdentity } from '@tierflow/protocol';
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

/** How far learned routing explores by default: a fifth of its decisions are Thompson draws, the rest take the best posterior mean. */
export const DEFAULT_EXPLORATION = 0.2;

/** The weight `routingObjective: 'cost'` or `'latency'` stands for: half a unit of success for the dearest (or slowest) candidate. */
export const DEFAULT_OBJECTIVE_WEIGHT = 0.5;

const OPTIMIZE = ['success', 'cost', 'latency'] as const;

/** What learned routing maximises: a word (`cost` and `latency` at {@link DEFAULT_OBJECTIVE_WEIGHT}), or `{ optimize, weight }`. */
export const routingObjectiveOptionSchema = z.union(
  [
    z.enum(OPTIMIZE),
    z.strictObject({
      optimize: z.enum(OPTIMIZE, { error: 'must be success, cost or latency' }),
      weight: z.number({ error: 'must be a number from 0 to 1' }).min(0, { message: 'must be from 0 to 1' }).max(1, { message: 'must be from 0 to 1' }),
    }),
  ],
  { error: 'must be success, cost, latency, or { optimize, weight } with a weight from 0 to 1' },
);
export type RoutingObjectiveOption = z.input<typeof routingObjectiveOptionSchema>;

/** The objective an option names. Pure. */
export function routingObjectiveOf(option: RoutingObjectiveOption | undefined): RoutingObjective {
  if (option === undefined) return DEFAULT_ROUTING_OBJECTIVE;
  if (typeof option === 'string') return { optimize: option, weight: option === 'success' ? 0 : DEFAULT_OBJECTIVE_WEIGHT };
  return { optimize: option.optimize, weight: option.weight };
}

/** How the Dispatcher chooses among a task type's candidates (docs/operations.md#routing-modes). */
export const routingModeOptionSchema = z.enum(ROUTING_MODES, { error: 'must be fixed, learned or shadow' });

/** What share of learned decisions are Thompson draws. */
export const explorationSchema = z.number({ error: 'must be a number from 0 to 1' }).min(0, { message: 'must be from 0 to 1' }).max(1, { message: 'must be from 0 to 1' });

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
  /** `fixed` (the table), `learned` (by each candidate's history) or `shadow` (the table, recording what learned would pick). */
  routingMode: routingModeOptionSchema.optional(),
  /** What learned routing maximises: success, or success weighed against cost or latency. */
  routingObjective: routingObjectiveOptionSchema.optional(),
  /** The share of learned decisions made by a Thompson draw; the rest take the best posterior mean. */
  exploration: explorationSchema.optional(),
  /** Seeds the routing draws, so a test can replay them; production leaves it out and draws from Math.random. */
  routingSeed: z.int().optional(),
  /** The agents a lock file pins (docs/operations.md#governed-handoffs): pinned in place of what the Fleet publishes of itself. */
  lockedAgents: z.custom<() => Promise<ReadonlyMap<string, AgentIdentity>>>((value) => typeof value === 'function', { message: 'must be a function' }).optional(),
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
  readonly routingMode: RoutingMode;
  readonly routingObjective: RoutingObjective;
  readonly exploration: number;
  /** Uniform in [0, 1): `Math.random`, or a seeded sequence when `routingSeed` is given. */
  readonly random: () => number;
  /** The agents a lock file pins; null without one. */
  readonly lockedAgents: (() => Promise<ReadonlyMap<string, AgentIdentity>>) | null;
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
    routingMode: result.value.routingMode ?? 'fixed',
    routingObjective: routingObjectiveOf(result.value.routingObjective),
    exploration: result.value.exploration ?? DEFAULT_EXPLORATION,
    random: result.value.routingSeed === undefined ? Math.random : seededRandom(result.value.routingSeed),
    lockedAgents: result.value.lockedAgents ?? null,
  };
}
