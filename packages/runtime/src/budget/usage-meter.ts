import { readUsage } from '@tierflow/core';
import { ERROR_TYPES, TierflowError, type Usage } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import type { ControlKeys } from '../cancellation/control-keys.js';
import type { TierLogger } from '../policy/handler.js';
import { chargeUsage, type Charge } from './charge-usage.js';

/**
 * A run's meter, as the work that calls models sees it. `reserve` before each model call,
 * `record` after it; together they count the run's calls, tokens and cost in Redis, across every
 * process, against the run's budget if it has one.
 */
export interface UsageMeter {
  /**
   * Counts one model call about to start.
   * @throws BudgetExceededError (permanent, code `budget_exceeded`) when the run has reached its budget: make no call.
   */
  reserve(): Promise<void>;
  /** Adds a finished call's tokens and cost (its `llm_calls` is ignored: `reserve` counted the call). Never throws. */
  record(usage: Usage): Promise<void>;
}

/** A meter that counts nothing and refuses nothing: for tests, and for work outside a run. */
export const UNMETERED: UsageMeter = Object.freeze({ reserve: () => Promise.resolve(), record: () => Promise.resolve() });

/** The run has spent its budget: no more model calls. Not retried; the whole run is being cancelled. */
export class BudgetExceededError extends TierflowError {
  override readonly name = 'BudgetExceededError';
  constructor(rootId: string, limit: string | null) {
    super(`run ${rootId} has reached its budget${limit ? ` (${limit})` : ''}: no more model calls`, { code: ERROR_TYPES.budgetExceeded, retryable: false });
  }
}

export interface UsageMetersDeps {
  readonly redis: RedisClient;
  readonly keys: ControlKeys;
  /** How long a run's budget hash is kept when nothing set its expiry. */
  readonly ttlMs: number;
  readonly log: TierLogger;
}

/** Meters for the runs a worker serves, one per root; each call is one script in Redis (charge-usage.ts). */
export class UsageMeters {
  constructor(private readonly deps: UsageMetersDeps) {}

  for(rootId: string): UsageMeter {
    return {
      reserve: async () => {
        const charge = await this.charge(rootId, null);
        if (!charge.accepted) throw new BudgetExceededError(rootId, charge.limit);
      },
      record: async (usage) => {
        try {
          await this.charge(rootId, readUsage(usage));
        } catch (error) {
          // The call is done and its answer is worth more than its count: the outcome still reports its usage.
          this.deps.log.warn('could not record a model call’s usage', { root: rootId, error: String(error) });
        }
      },
    };
  }

  private async charge(rootId: string, usage: Usage | null): Promise<Charge> {
    const { redis, keys, ttlMs, log } = this.deps;
    const charge = await chargeUsage(redis, { budget: keys.budget(rootId), stops: keys.budgetStops }, rootId, usage, ttlMs);
    if (charge.stopsRun) log.warn('a run went over its budget: the Monitor cancels it', { root: rootId, limit: charge.limit, ...charge.spent });
    return charge;
  }
}
