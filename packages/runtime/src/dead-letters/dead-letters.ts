import { type Queue, type Job } from 'bullmq';
import type { RedisClient } from '@tierflow/beads';
import { tooDeepAt, TierflowError, tierOfSlug } from '@tierflow/protocol';
import { bullQueue } from '../redis/bull-queue.js';

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
  /**
   * `json_text`: `data` is the job's data as the JSON text it was stored as, since it nests too
   * deep to be written back as a value; it is replayed only corrected.
   */
  readonly data_encoding?: 'json_text';
}

/**
 * Dead letters: bad input gets a clear error and loses nothing. A rejected job is copied here
 * with its reason before it fails (never retried), and can be replayed onto its queue, as it was
 * or corrected.
 */
export class DeadLetters {
  /** Each cell's dead-letter queue, with its prefix; a worker keeps letters in its own cell's. */
  private readonly cells: readonly { readonly prefix: string; readonly queue: Queue }[];

  /** `prefixes`: the cells to read (cells/cells.ts); a worker's own, or every cell of a deployment. */
  constructor(
    private readonly redis: RedisClient,
    prefixes: string | readonly string[],
  ) {
    this.cells = (typeof prefixes === 'string' ? [prefixes] : prefixes).map((prefix) => ({ prefix, queue: bullQueue(DEAD_LETTER_QUEUE, redis, prefix) }));
  }

  /** Keeps a refused job (in the first cell's queue). The id joins queue and job id (`fleet-<id>`), so a job refused twice is kept once. */
  async keep(job: Job, reason: string): Promise<string> {
    const { queue } = this.cells[0]!;
    const id = `${job.queueName}-${job.id}`;
    const rejected = { id, queue: job.queueName, job_id: job.id!, reason, rejected_at: new Date().toISOString() };
    // Data nested past what JSON.stringify can write is kept as the text it came as.
    const letter: DeadLetter =
      tooDeepAt(job.data) === null
        ? { ...rejected, data: job.data as unknown }
        : { ...rejected, data: await this.redis.hget(`${job.queueQualifiedName}:${job.id!}`, 'data'), data_encoding: 'json_text' };
    const existing = await queue.getJob(id);
    if (existing) await existing.remove();
    // Delayed far ahead and never worked: the letter only waits to be read, replayed or purged.
    await queue.add('dead-letter', letter, { jobId: id, delay: 100 * 365 * 24 * 3600_000, removeOnComplete: true });
    return id;
  }

  async list(): Promise<DeadLetter[]> {
    const found = await Promise.all(this.cells.map(({ queue }) => queue.getJobs(['delayed', 'waiting', 'prioritized'], 0, -1, true)));
    return found.flat().map((job) => job.data as DeadLetter);
  }

  async get(id: string): Promise<DeadLetter | null> {
    return ((await this.find(id))?.job.data as DeadLetter | undefined) ?? null;
  }

  /**
   * Puts a letter's job back on its queue (in the letter's cell) under its own id, as it was or
   * with `data` in its place, and forgets the letter. The refused original is removed first so
   * the id is free. A replayed job stands alone: the parent it once had has long since moved on.
   */
  async replay(id: string, data?: unknown): Promise<{ queue: string; jobId: string } | null> {
    const found = await this.find(id);
    if (!found) return null;
    const letter = found.job.data as DeadLetter;
    if (!tierOfSlug(letter.queue)) throw TierflowError.permanent(`dead letter ${id} names an unknown queue ${letter.queue}`, { code: 'invalid_input' });
    if (data === undefined && letter.data_encoding === 'json_text') {
      throw TierflowError.permanent(`dead letter ${id} kept its data as JSON text, nested too deep to replay as it was: replay it corrected`, { code: 'invalid_input' });
    }
    const target = bullQueue(letter.queue, this.redis, found.prefix);
    try {
      const original = await target.getJob(letter.job_id);
      if (original) await original.remove();
      await target.add('replay', data === undefined ? letter.data : data, { jobId: letter.job_id, attempts: 3, backoff: { type: 'tierflow' } });
    } finally {
      await target.close();
    }
    await found.job.remove();
    return { queue: letter.queue, jobId: letter.job_id };
  }

  /** Forgets every letter; returns how many there were. */
  async purge(): Promise<number> {
    const removed = await Promise.all(
      this.cells.map(async ({ queue }) => {
        const jobs = await queue.getJobs(['delayed', 'waiting', 'prioritized'], 0, -1, false);
        await Promise.all(jobs.map((job) => job.remove()));
        return jobs.length;
      }),
    );
    return removed.reduce((sum, count) => sum + count, 0);
  }

  async close(): Promise<void> {
    await Promise.all(this.cells.map(({ queue }) => queue.close()));
  }

  /** A letter and its cell: any cell may hold it, since a refused job may have been put in any. */
  private async find(id: string): Promise<{ readonly prefix: string; readonly job: Job } | null> {
    const jobs = await Promise.all(this.cells.map(({ queue }) => queue.getJob(id)));
    const index = jobs.findIndex((job) => job !== undefined);
    return index === -1 ? null : { prefix: this.cells[index]!.prefix, job: jobs[index]! };
  }
}
