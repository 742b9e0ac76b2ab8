import { ERROR_TYPES } from '@tierflow/protocol';
import type { Job } from 'bullmq';
import type { OutcomeDraft } from '../policy/handler.js';

/** The error_type of work answered `failed` because its workers kept dying while they ran it. */

/**
 * How many times this job's worker died while running it: BullMQ's stalled-job check counts each
 * time it takes the job back from a worker whose lock lapsed (`stalledCounter`, never reset). Not
 * `attemptsStarted - attemptsMade`: a parent starts again at each resume without having crashed.
 */
export function crashesOf(job: Pick<Job, 'stalledCounter'>): number {
  return Number.isSafeInteger(job.stalledCounter) && job.stalledCounter > 0 ? job.stalledCounter : 0;
}

/**
 * Whether a job is poison: its worker died `maxCrashes` times or more running it, so it is
 * answered without running its handler again.
 */
export function isPoison(crashes: number, maxCrashes: number): boolean {
  return crashes >= maxCrashes;
}

/**
 * BullMQ's own limit (`maxStalledCount`), past which it fails a taken-back job with "job stalled
 * more than allowable limit": one more than ours, so the runtime answers first, and BullMQ is
 * left as the backstop should the answer itself keep dying.
 */
export function stalledLimit(maxCrashes: number): number {
  return maxCrashes + 1;
}

/** The answer to poison work: permanent, since the same input would kill the next worker too. */
export function crashedDraft(crashes: number): OutcomeDraft {
  return {
    status: 'failed',
    summary: `not run again: its worker died ${crashes} times running it`,
    confidence: 0,
    error_type: ERROR_TYPES.workerCrashed,
    error_detail: `its worker died ${crashes} times while running it (killed, out of memory, or stopped renewing its lock), so it is taken for poison and not run again`,
    recoverable: false,
  };
}
