import type { Queue } from 'bullmq';
import type { RedisClient } from '@tierflow/beads';
import type { TierLogger } from '../policy/handler.js';
import { LockLostError, type FencedBatch } from '../redis/fenced-batch.js';
import type { JobFinisher } from '../redis/job-finisher.js';
import type { ChildJob, RoundReply, RoundSender } from '../redis/round-sender.js';

/** Which lock a pass holds: its job's, with the token BullMQ gave this pass. */
export interface PassLock {
  readonly jobId: string;
  readonly key: string;
  readonly token: string;
}

/**
 * Every write a pass makes goes through here, fenced by its job's lock: a pass that lost its job
 * to another worker writes nothing. Three ways, one per kind of pass end:
 * - `commit`: writes now (a delegating pass's state, a first_success winner's answer);
 * - `sendRound`: a round's writes, its child jobs on the tier below and the job's park, in one script;
 * - `finish`: an answering pass's last writes, held to go with its job's completion in one script.
 */
export class PassWriter {
  constructor(
    private readonly deps: {
      readonly redis: RedisClient;
      readonly rounds: RoundSender;
      readonly finisher: JobFinisher;
      /** The queue of the tier below; null at the Fleet, which sends no rounds. */
      readonly lowerQueue: Queue | null;
      readonly log: TierLogger;
    },
  ) {}

  commit(batch: FencedBatch, lock: PassLock): Promise<unknown[]> {
    return this.fenced(lock, () => batch.commit(this.deps.redis, lock.key, lock.token, lock.jobId));
  }

  sendRound(batch: FencedBatch, lock: PassLock, children: readonly ChildJob[]): Promise<RoundReply> {
    const { lowerQueue } = this.deps;
    if (!lowerQueue) throw new Error('the Fleet sends no rounds');
    return this.fenced(lock, () => this.deps.rounds.send(batch, lock, lowerQueue, children));
  }

  finish(batch: FencedBatch, lock: PassLock): void {
    this.deps.finisher.hold(lock.jobId, lock.token, batch);
  }

  /** Runs a fenced write, saying so when the pass has lost its job's lock. */
  private async fenced<T>(lock: PassLock, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof LockLostError) this.deps.log.warn('lost its lock: another worker has the job; this pass wrote nothing', { id: lock.jobId });
      throw error;
    }
  }
}
