import { tierBelow, type TierName, type TierSlug } from '@tierflow/protocol';
import type { Job } from 'bullmq';
import type { RedisClient } from '@tierflow/beads';
import type { JobFinder } from '../redis/job-finder.js';
import type { Signer } from '../security/signing-keys.js';
import { cancelMessage, pendingChildIds } from './cancel.js';

export interface TierCancellerOptions {
  readonly redis: RedisClient;
  readonly finder: JobFinder;
  readonly prefix: string;
  /** The tier that cancels: the source of its cancellations on the wire. */
  readonly tier: TierName;
  /** The same tier as a party: it writes (and, when signing, signs) the marks. */
  readonly party: TierSlug;
  readonly signer: Signer | null;
  /** How long marks are kept: they must outlive the work they stop. */
  readonly markTtlMs: number;
  /** Now, on the deployment's clock. */
  readonly now: () => number;
}

/**
 * A tier cancelling work it sent, in its own name: a parent stopping its children when it is
 * stopped, a watchdog stopping children past their deadline, a first_success winner its siblings.
 * Each cancellation cascades to everything below the child.
 */
export class TierCanceller {
  constructor(private readonly options: TierCancellerOptions) {}

  /** Cancels one message's work; `winner` names the first_success child on whose behalf a sibling is cancelled. */
  cancel(messageId: string, reason: string, winner?: string): Promise<unknown> {
    const { redis, finder, prefix, tier, party, signer, markTtlMs, now } = this.options;
    return cancelMessage(redis, finder, prefix, messageId, { now: now(), reason, source: tier, writer: party, markTtlMs, signer, ...(winner ? { winner } : {}) });
  }

  /** Cancels a message's work, its answer carrying `errorType` rather than `cancelled` (a run over its budget). */
  cancelWith(messageId: string, reason: string, errorType: string): Promise<unknown> {
    const { redis, finder, prefix, tier, party, signer, markTtlMs, now } = this.options;
    return cancelMessage(redis, finder, prefix, messageId, { now: now(), reason, source: tier, writer: party, markTtlMs, signer, errorType });
  }

  /** Cancels each of `ids`, one after another. */
  async cancelAll(ids: readonly string[], reason: string): Promise<void> {
    for (const id of ids) await this.cancel(id, reason);
  }

  /** Cancels the children BullMQ still counts as pending for a job of this tier, for a parent that lost its own record of them. */
  async cancelPending(job: Job, reason: string): Promise<void> {
    const below = tierBelow(this.options.tier);
    if (below) await this.cancelAll(await pendingChildIds(this.options.finder, job, below), reason);
  }
}
