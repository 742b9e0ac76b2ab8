import type { TierName } from '@tierflow/protocol';
import { type Queue, type Job } from 'bullmq';
import type { RedisClient } from '@tierflow/beads';
import { QUEUE_OF } from '../messages/queues.js';
import { bullQueue } from './bull-queue.js';

/** The BullMQ job states a job does not leave: it has answered. */
export const FINISHED_STATES: ReadonlySet<string> = new Set(['completed', 'failed']);

const BY_DEPTH: readonly TierName[] = ['PROGRESS_MONITOR', 'ABSTRACT_ARCHITECT', 'ROUTING_DISPATCHER', 'SPECIALIZED_FLEET'];

/** The four tier queues on one shared connection, and a way to find a message's job among them. */
export class JobFinder {
  private readonly queues = new Map<TierName, Queue>();

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  queue(tier: TierName): Queue {
    let queue = this.queues.get(tier);
    if (!queue) this.queues.set(tier, (queue = bullQueue(QUEUE_OF[tier], this.redis, this.prefix)));
    return queue;
  }

  /**
   * A message's job and tier. Ids Tierflow makes say their depth (`root.0-0.0-0` is the
   * Dispatcher's), so that queue is tried first; other ids are looked for in every queue.
   */
  async find(messageId: string): Promise<{ job: Job; tier: TierName } | null> {
    const depth = messageId.split('.').length - 1;
    const guess = BY_DEPTH[depth];
    const order = guess ? [guess, ...BY_DEPTH.filter((tier) => tier !== guess)] : BY_DEPTH;
    for (const tier of order) {
      const job = await this.queue(tier).getJob(messageId);
      if (job) return { job, tier };
    }
    return null;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }
}
