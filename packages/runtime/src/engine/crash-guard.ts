import { ERROR_TYPES } from '@tierflow/protocol';
import type { Job } from 'bullmq';
import type { OutcomeDraft } from '../policy/handler.js';

/**
 * How many times this job's worker died while it held the job: BullMQ's stalled-job check counts
 * each time it takes the job back from a worker whose lock lapsed (`stalledCounter`, never
 * reset). Not `attemptsStarted - attemptsMade`: a parent starts again at each resume without
 * having crashed. Every job a dying process held is counted, the guilty and the bystanders alike,
 * so a count alone never convicts (see {@link crashVerdict}).
 */
export function crashesOf(job: Pick<Job, 'stalledCounter'>): number {
  return Number.isSafeInteger(job.stalledCounter) && job.stalledCounter > 0 ? job.stalledCounter : 0;
}

/**
 * From how many deaths on a job runs alone in its worker: from the one before the limit (so the
 * death that reaches it happens with no other job beside it), and never before a first death.
 */
export function runsAloneFrom(maxCrashes: number): number {
  return Math.max(1, maxCrashes - 1);
}

/** What to do with a job its workers died holding. */
export type CrashVerdict =
  /** Run it as usual, beside other jobs. */
  | 'run'
  /** Run it with no other job running in its worker, so that if the worker dies, the death is its. */
  | 'run-alone'
  /** Poison: answer it `worker_crashed` without running it again. */
  | 'answer-crashed';

/**
 * Whether a job is poison: only when its workers died `maxCrashes` times or more holding it AND
 * at least one of those deaths came while it ran alone (`aloneDeaths`), the one piece of evidence
 * that points at it rather than at a job beside it. A job that reached the limit without such a
 * death is a bystander until shown otherwise: it runs alone, and is convicted only if that run
 * dies too. Pure.
 */
export function crashVerdict(crashes: number, aloneDeaths: number, maxCrashes: number): CrashVerdict {
  if (crashes >= maxCrashes && aloneDeaths > 0) return 'answer-crashed';
  return crashes >= runsAloneFrom(maxCrashes) ? 'run-alone' : 'run';
}

/**
 * BullMQ's own limit (`maxStalledCount`), past which it fails a taken-back job with "job stalled
 * more than allowable limit": a backstop, should the answer itself keep dying. Well past ours: a
 * bystander waiting its turn to run alone is taken back again each time a job ahead of it dies
 * running alone, at most about once for each other job its worker runs at once.
 */
export function stalledLimit(maxCrashes: number, concurrency: number): number {
  return maxCrashes + Math.max(1, concurrency);
}

/** The answer to poison work: permanent, since the same input would kill the next worker too. */
export function crashedDraft(crashes: number): OutcomeDraft {
  return {
    status: 'failed',
    summary: `not run again: its worker died ${crashes} times running it`,
    confidence: 0,
    error_type: ERROR_TYPES.workerCrashed,
    error_detail: `its worker died ${crashes} times while running it, at least once while it ran alone (killed, out of memory, or stopped renewing its lock), so it is taken for poison and not run again`,
    recoverable: false,
  };
}
