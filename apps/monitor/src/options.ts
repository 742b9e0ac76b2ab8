import { formatValidationError, TierflowError, validateWith } from '@tierflow/protocol';
import { RUNTIME_RANGES, wholeNumber } from '@tierflow/runtime/policy';
import { z } from 'zod';
import { LOADED_LORAS_REFRESH_MS } from './loaded-loras.js';
import { BOTTLENECKS_REFRESH_MS } from './bottleneck-schedule.js';

/**
 * The recommended Architect timeout (docs/protocol.md#timeouts): 25 minutes, a Dispatcher
 * deadline for the first round and for its one revision, and a minute to plan; with the Monitor's
 * one fresh attempt, a run still ends within a client's default wait of an hour.
 */
export const DEFAULT_ARCHITECT_TIMEOUT_MS = 1_500_000;

/** One fresh attempt after a recoverable failure, by default. */
export const DEFAULT_MAX_RESETS = 1;

/** The history's half-life: what happened a day ago counts half as much as what happens now. */
export const DEFAULT_HISTORY_HALF_LIFE_MS = 24 * 3600_000;

/** `history/runs/<root>` is kept thirty days (what is learned from it, in decayed sums, longer). */
export const HISTORY_RUN_TTL_MS = 30 * 24 * 3600_000;

/** Surprise needs some history first, and then a clear outlier. */
export const DEFAULT_SURPRISE = { minSamples: 5, sigmas: 3 } as const;

/** When an outcome counts as surprising. */
export const surpriseOptionsSchema = z.strictObject({
  /** Samples of a task type needed before anything is judged surprising. */
  minSamples: z.int().positive().optional(),
  /** How many standard deviations from the mean a sample must lie to surprise. */
  sigmas: z.number().positive().optional(),
});

/** What a deployment may set; the rest has defaults. */
export const monitorOptionsSchema = z.strictObject({
  /** How many fresh attempts a recoverable Architect failure gets; 0 never resets. */
  maxResets: z.int().nonnegative().optional(),
  /** The default timeout of what it delegates: bounded as TIERFLOW_ARCHITECT_TIMEOUT_MS is, for it becomes a timer. */
  architectTimeoutMs: wholeNumber(RUNTIME_RANGES.delegationTimeoutMs).optional(),
  surprise: surpriseOptionsSchema.optional(),
  /** How often at most `system/loaded-loras` is brought up to date, as roots arrive; 0 never. */
  loadedLorasRefreshMs: z.int().nonnegative().optional(),
  /** How often at most `system/bottlenecks` is re-ranked for pairs ranked before (a new pair at once); 0 on every run. */
  bottlenecksRefreshMs: z.int().nonnegative().optional(),
  /** The half-life of the history the Monitor keeps (docs/operations.md#history), ms; bounded as TIERFLOW_HISTORY_HALF_LIFE_MS is. */
  historyHalfLifeMs: wholeNumber(RUNTIME_RANGES.historyHalfLifeMs).optional(),
});
export type MonitorOptionsInput = z.input<typeof monitorOptionsSchema>;

/** When an outcome counts as surprising, resolved. */
export interface SurpriseOptions {
  readonly minSamples: number;
  readonly sigmas: number;
}

/** The Monitor's policy options with defaults filled in. */
export interface ResolvedMonitorOptions {
  readonly maxResets: number;
  readonly architectTimeoutMs: number;
  readonly surprise: SurpriseOptions;
  readonly loadedLorasRefreshMs: number;
  readonly bottlenecksRefreshMs: number;
  readonly historyHalfLifeMs: number;
}

/**
 * Fills defaults and checks the options.
 *
 * @throws TierflowError (permanent, code `invalid_config`) listing every problem.
 */
export function resolveMonitorOptions(input: MonitorOptionsInput = {}): ResolvedMonitorOptions {
  const result = validateWith(monitorOptionsSchema, input);
  if (!result.ok) {
    throw TierflowError.permanent(`invalid monitor options: ${result.errors.map(formatValidationError).join('; ')}`, { code: 'invalid_config' });
  }
  const { maxResets, architectTimeoutMs, surprise, loadedLorasRefreshMs, bottlenecksRefreshMs, historyHalfLifeMs } = result.value;
  return {
    maxResets: maxResets ?? DEFAULT_MAX_RESETS,
    architectTimeoutMs: architectTimeoutMs ?? DEFAULT_ARCHITECT_TIMEOUT_MS,
    surprise: { minSamples: surprise?.minSamples ?? DEFAULT_SURPRISE.minSamples, sigmas: surprise?.sigmas ?? DEFAULT_SURPRISE.sigmas },
    loadedLorasRefreshMs: loadedLorasRefreshMs ?? LOADED_LORAS_REFRESH_MS,
    bottlenecksRefreshMs: bottlenecksRefreshMs ?? BOTTLENECKS_REFRESH_MS,
    historyHalfLifeMs: historyHalfLifeMs ?? DEFAULT_HISTORY_HALF_LIFE_MS,
  };
}
