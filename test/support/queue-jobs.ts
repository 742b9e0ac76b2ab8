import { waitFor } from '@tierflow/testing';
import { Queue, type Job } from 'bullmq';
import type { Redis } from 'ioredis';

/** Adds `data` straight onto a tier queue as job `id`, as anyone with queue access could, and waits for it to finish. */
export async function submitJob(redis: Redis, prefix: string, queueName: string, id: string, data: unknown): Promise<Job> {
  const queue = new Queue(queueName, { connection: redis, prefix });
  try {
    await queue.add('test', data, { jobId: id, attempts: 3 });
    return await finishedJob(queue, id);
  } finally {
    await queue.close();
  }
}

/** The job once it has completed or failed, read after it finished (a copy read before would be stale). */
export async function finishedJob(queue: Queue, id: string): Promise<Job> {
  return waitFor(
    async () => {
      const state = await queue.getJobState(id);
      return state === 'completed' || state === 'failed' ? ((await queue.getJob(id)) ?? null) : null;
    },
    { description: `${queue.name} job ${id} to finish` },
  );
}
