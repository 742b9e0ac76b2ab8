import { Queue, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { TierflowError, tierOfSlug } from '@tierflow/protocol';

/** The queue where rejected jobs are kept for an operator to see and replay; nothing ever consumes it. */
export const DEAD_LETTER_QUEUE = 'dead-letter';

/** A job a tier refused: where it came from, what it carried, and why it was refused. */
export interface DeadLetter {
  readonly id: string;
  readonly queue: string;
  readonly job_id: string;
  readonly reason: string;
  readonly rejected_at: string;
  readonly data: unknown;
}

/**
 * Dead letters: bad input gets a clear error and loses nothing. A rejected job is copied here
 * with its reason before it fails (never retried), and can be replayed onto its queue, as it was
 * or corrected.
 */
export class DeadLetters {
  private readonly queue: Queue;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.queue = new Queue(DEAD_LETTER_QUEUE, { connection: redis, prefix });
  }

  /** Keeps a refused job. The id joins queue and job id (`fleet-<id>`), so a job refused twice is kept once. */
  async keep(job: Job, reason: string): Promise<string> {
    const id = `${job.queueName}-${job.id}`;
    const letter: DeadLetter = { id, queue: job.queueName, job_id: job.id!, reason, rejected_at: new Date().toISOString(), data: job.data as unknown };
    const existing = await this.queue.getJob(id);
    if (existing) await existing.remove();
    // Delayed far ahead and never worked: the letter only waits to be read, replayed or purged.
    await this.queue.add('dead-letter', letter, { jobId: id, delay: 100 * 365 * 24 * 3600_000, removeOnComplete: true });
    return id;
  }

  async list(): Promise<DeadLetter[]> {
    const jobs = await this.queue.getJobs(['delayed', 'waiting', 'prioritized'], 0, -1, true);
    return jobs.map((job) => job.data as DeadLetter);
  }

  async get(id: string): Promise<DeadLetter | null> {
    const job = await this.queue.getJob(id);
    return job ? (job.data as DeadLetter) : null;
  }

  /**
   * Puts a letter's job back on its queue under its own id, as it was or with `data` in its
   * place, and forgets the letter. The refused original is removed first so the id is free.
   * A replayed job stands alone: the parent it once had has long since moved on.
   */
  async replay(id: string, data?: unknown): Promise<{ queue: string; jobId: string } | null> {
    const letterJob = await this.queue.getJob(id);
    if (!letterJob) return null;
    const letter = letterJob.data as DeadLetter;
    if (!tierOfSlug(letter.queue)) throw TierflowError.permanent(`dead letter ${id} names an unknown queue ${letter.queue}`, { code: 'invalid_input' });
    const target = new Queue(letter.queue, { connection: this.redis, prefix: this.prefix });
    try {
      const original = await target.getJob(letter.job_id);
      if (original) await original.remove();
      await target.add('replay', data === undefined ? letter.data : data, { jobId: letter.job_id, attempts: 3, backoff: { type: 'tierflow' } });
    } finally {
      await target.close();
    }
    await letterJob.remove();
    return { queue: letter.queue, jobId: letter.job_id };
  }

  /** Forgets every letter; returns how many there were. */
  async purge(): Promise<number> {
    const letters = await this.list();
    await Promise.all(letters.map(async (letter) => (await this.queue.getJob(letter.id))?.remove()));
    return letters.length;
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
