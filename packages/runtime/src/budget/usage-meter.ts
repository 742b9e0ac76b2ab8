import { randomUUID } from 'node:crypto';
import { readUsage, ZERO_USAGE } from '@tierflow/core';
import { ERROR_TYPES, TierflowError, type Usage } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import type { ControlKeys } from '../redis/keys.js';
import type { TierLogger } from '../policy/handler.js';
import type { UsageMeter, UsageReservation } from '../policy/usage-meter.js';
import { budgetStandingOf } from './budget-standing.js';
import { countToolCall, reserveCall, settleCall, type Charge, type ChargeKeys } from './charge-usage.js';

const SETTLED: UsageReservation = Object.freeze({ settle: () => Promise.resolve() });

/** A meter that counts nothing and refuses nothing: for tests, and for work outside a run. */
export const UNMETERED: UsageMeter = Object.freeze({
  reserve: () => Promise.resolve(SETTLED),
  record: () => Promise.resolve(),
  standing: () => Promise.resolve({ limits: {}, committed: ZERO_USAGE }),
});

/** The run has spent its budget: no more model calls. Not retried; the whole run is being cancelled. */
export class BudgetExceededError extends TierflowError {
  override readonly name = 'BudgetExceededError';
  constructor(rootId: string, limit: string | null) {
    super(`run ${rootId} has reached its budget${limit ? ` (${limit})` : ''}: no more ${limit === 'max_tool_calls' ? 'tool' : 'model'} calls`, { code: ERROR_TYPES.budgetExceeded, retryable: false });
  }
}

export interface UsageMetersDeps {
  readonly redis: RedisClient;
  readonly keys: ControlKeys;
  /** How long a run's budget hash is kept when nothing set its expiry. */
  readonly ttlMs: number;
  readonly log: TierLogger;
  /** How long a reservation waits for calls in flight before it is refused on what they hold (a crashed caller's hold never settles). */
  readonly heldWaitMs?: number;
}

/** A reservation waits this long for the run's calls in flight, by default: longer than an unreachable endpoint's tries. */
export const HELD_WAIT_MS = 60_000;

/** Meters for the runs a worker serves, one per root; each reservation and settlement is one script in Redis (charge-usage.ts). */
export class UsageMeters {
  /** An endpoint without usage is warned about once per worker: every one of its calls would say the same. */
  private warnedUnreported = false;

  constructor(private readonly deps: UsageMetersDeps) {}

  /** The meter of one run; `signal` ends a reservation's wait for calls in flight (the pass was stopped). */
  for(rootId: string, signal?: AbortSignal): UsageMeter {
    const keys: ChargeKeys = { budget: this.deps.keys.budget(rootId), stops: this.deps.keys.budgetStops };
    return {
      reserve: async (estimate) => {
        const id = randomUUID();
        const held = estimate === undefined ? null : readUsage(estimate);
        const charge = this.noted(rootId, await this.reserveWaiting(keys, rootId, id, held, signal));
        if (!charge.accepted) throw new BudgetExceededError(rootId, charge.limit);
        return held === null ? SETTLED : { settle: (usage, estimated = false) => this.settle(rootId, keys, id, usage, estimated) };
      },
      record: (usage) => this.settle(rootId, keys, '', usage, false),
      toolCall: async () => {
        const charge = await countToolCall(this.deps.redis, keys, rootId, this.deps.ttlMs);
        if (charge.stopsRun) this.deps.log.warn('a run went over its budget: the Monitor cancels it', { root: rootId, limit: charge.limit, tool_calls: charge.toolCalls });
        if (!charge.accepted) throw new BudgetExceededError(rootId, charge.limit);
      },
      standing: async () => budgetStandingOf(await this.deps.redis.hgetall(keys.budget)),
    };
  }

  /** Reserves, trying again at a growing interval while only calls in flight refuse it; the last try may not wait. */
  private async reserveWaiting(keys: ChargeKeys, rootId: string, id: string, held: Usage | null, signal: AbortSignal | undefined): Promise<Charge> {
    const until = Date.now() + (this.deps.heldWaitMs ?? HELD_WAIT_MS);
    for (let pauseMs = 25; ; pauseMs = Math.min(pauseMs * 2, 1_000)) {
      const mayWait = Date.now() + pauseMs < until;
      const charge = await reserveCall(this.deps.redis, keys, rootId, id, held, this.deps.ttlMs, mayWait);
      if (!charge.waits) return charge;
      await pause(pauseMs, signal);
    }
  }

  private async settle(rootId: string, keys: ChargeKeys, id: string, usage: Usage, estimated: boolean): Promise<void> {
    if (estimated && !this.warnedUnreported) {
      this.warnedUnreported = true;
      this.deps.log.warn(
        'a model endpoint reported no usage: its calls are charged by estimate (prompt and answer at 4 characters a token) against run budgets, and their outcomes say usage_estimated',
        { root: rootId },
      );
    }
    try {
      this.noted(rootId, await settleCall(this.deps.redis, keys, rootId, id, readUsage(usage), estimated, this.deps.ttlMs));
    } catch (error) {
      // The call is done and its answer is worth more than its count: the outcome still reports its
      // usage, and an unreleased reservation stays held (counted) until the run's hash expires.
      this.deps.log.warn('could not record a model call’s usage', { root: rootId, error: String(error) });
    }
  }

  private noted(rootId: string, charge: Charge): Charge {
    if (charge.stopsRun) this.deps.log.warn('a run went over its budget: the Monitor cancels it', { root: rootId, limit: charge.limit, ...charge.spent });
    return charge;
  }
}

/** Waits `ms`, or throws the signal's reason as soon as it fires. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
