import type { Job } from 'bullmq';

/** Moves a delayed job to be taken now; one already woken (by whoever got there first) is left as it is. */
export async function wakeJob(job: Job): Promise<void> {
  try {
    await job.promote();
  } catch {
    // Already woken: nothing to do.
  }
}
