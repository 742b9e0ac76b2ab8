import { TierflowError } from '@tierflow/protocol';

/**
 * How long past the objective's `timeout_ms` a client waits by default. The Monitor answers
 * `timeout` itself a margin before its deadline (counted from the enqueue), through its own timer
 * or the 250 ms watchdog sweep; the answer then has to reach the client, and if its event was
 * missed, the next reconciliation (every {@link RECONCILE_INTERVAL_MS}) has to find it. 5 s covers
 * two reconciliations and a loaded host, and is short next to any timeout worth setting.
 */
export const WAIT_GRACE_MS = 5_000;

/**
 * The default limit of a wait for a root without `timeout_ms`. Such a root still ends: the
 * Monitor's delegation carries the Architect's default timeout (25 minutes unless the deployment
 * changes it), with one fresh attempt on a recoverable failure; an hour leaves room for a backlog
 * and for raised defaults the client cannot see, and still ends a wait nobody will answer (no
 * Monitor running). Give the objective a `timeout_ms`, or the wait a limit, for a tighter one.
 */
export const DEFAULT_WAIT_LIMIT_MS = 3_600_000;

/** How often the roots being waited on are looked up, in one round trip for all of them. */
export const RECONCILE_INTERVAL_MS = 2_000;

/** Node fires a longer timer at once; a limit this long (24.8 days) is as good as none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The default limit of a wait: the objective's timeout plus the grace, or the default without one. */
export function defaultWaitLimitMs(objectiveTimeoutMs: number | null): number {
  return Math.min(MAX_TIMER_MS, objectiveTimeoutMs === null ? DEFAULT_WAIT_LIMIT_MS : objectiveTimeoutMs + WAIT_GRACE_MS);
}

/**
 * A limit the caller gave, checked.
 *
 * @throws TierflowError (code `invalid_argument`) for anything but a positive number of milliseconds.
 */
export function givenWaitLimitMs(timeoutMs: number): number {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw TierflowError.permanent(`timeoutMs ${String(timeoutMs)} must be a positive number of milliseconds`, { code: 'invalid_argument' });
  }
  return Math.min(MAX_TIMER_MS, Math.ceil(timeoutMs));
}
