import { TierflowError } from '@tierflow/protocol';

/**
 * Why a wait for a root's outcome ended without one. Stable codes, so callers branch on `code`
 * rather than on messages:
 * - `wait_timeout`: the wait's limit passed first (the root may still finish: `tierflow result`);
 * - `root_vanished`: the root existed and no longer does (Redis flushed, or restarted without
 *   persistence, or the job was removed): seen by this client before, or gone with its whole queue;
 * - `root_not_found`: no such root on this deployment's Monitor queue, which has others;
 * - `root_failed`: the root's job failed outside the tiers (its outcome was never written);
 * - `root_outcome_invalid`: it finished with a return value that is not a valid outcome of this
 *   very run (signed by the Monitor, in a deployment that signs);
 * - `root_unreadable`: its record in Redis cannot be read as a job;
 * - `client_closed`: the client was closed while waiting.
 */
export type RootWaitErrorCode = 'wait_timeout' | 'root_vanished' | 'root_not_found' | 'root_failed' | 'root_outcome_invalid' | 'root_unreadable' | 'client_closed';

/** A wait for a root's outcome that ended without one; `code` says why. */
export class RootWaitError extends TierflowError {
  override readonly name = 'RootWaitError';
  declare readonly code: RootWaitErrorCode;

  constructor(
    readonly rootId: string,
    code: RootWaitErrorCode,
    message: string,
  ) {
    // A timeout or a vanished root may go differently on another try; the rest will not.
    super(message, { code, retryable: code === 'wait_timeout' });
  }
}

/** The error for each way a wait ends without an outcome, with its message. */
export const waitError = {
  timeout: (rootId: string, limitMs: number): RootWaitError =>
    new RootWaitError(rootId, 'wait_timeout', `timed out after ${limitMs} ms waiting for root ${rootId} (it may still finish: tierflow result ${rootId})`),
  vanished: (rootId: string): RootWaitError =>
    new RootWaitError(rootId, 'root_vanished', `root ${rootId} no longer exists: Redis was flushed or restarted without persistence, or its job was removed; it will not answer`),
  notFound: (rootId: string): RootWaitError =>
    new RootWaitError(rootId, 'root_not_found', `no root objective ${rootId} on this deployment's Monitor queue (check the id, REDIS_URL and TIERFLOW_PREFIX)`),
  failed: (rootId: string, reason: string): RootWaitError => new RootWaitError(rootId, 'root_failed', `root ${rootId} failed: ${reason}`),
  invalidOutcome: (rootId: string, reason: string): RootWaitError => new RootWaitError(rootId, 'root_outcome_invalid', `root ${rootId} finished without a valid outcome of its own: ${reason}`),
  unreadable: (rootId: string, problem: string): RootWaitError => new RootWaitError(rootId, 'root_unreadable', `root ${rootId}'s record in Redis cannot be read as a job: ${problem}`),
  closed: (rootId: string): RootWaitError => new RootWaitError(rootId, 'client_closed', `the client was closed while waiting for root ${rootId}`),
};
