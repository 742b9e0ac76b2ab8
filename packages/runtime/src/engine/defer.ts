import { inFlightTtlMs } from '../config/retention.js';
import { ModelCapacityWait } from '../policy/model-calls.js';
import type { Step } from '../policy/handler.js';
import { FencedBatch } from '../redis/fenced-batch.js';
import type { Engine, Pass } from './pass.js';
import { wakeJob } from './wake-job.js';

/**
 * Leaves the worker until `until`: the job waits in BullMQ's delayed set and its next pass starts
 * afresh (docs/operations.md#waiting-without-holding-a-worker). The attempt is marked first, so
 * that pass is not taken for a new receipt of the work; a cancellation that came while the job
 * was being moved could not wake it, so the job looks once more after.
 */
export async function defer(engine: Pick<Engine, 'keys' | 'party' | 'runtime' | 'writer'>, pass: Pass, until: number, reason: string): Promise<void> {
  const { job, lock } = pass;
  const batch = new FencedBatch();
  batch.set(engine.keys.deferred(engine.party, job.id!), String(pass.context.attempt), 'PX', inFlightTtlMs(engine.runtime));
  await engine.writer.commit(batch, lock);
  pass.span.addEvent('deferred', { until: new Date(until).toISOString(), reason });
  await job.moveToDelayed(until, lock.token);
  if (pass.context.signal.aborted) await wakeJob(job);
}

/**
 * The policy's start, with a model call that parked its pass (ModelParking) read as the wait it
 * asks for; only a pass that offered parking turns one into a wait.
 */
export async function orWait(start: () => Promise<Step>): Promise<Step> {
  try {
    return await start();
  } catch (error) {
    if (error instanceof ModelCapacityWait) return { kind: 'wait', until: error.until, reason: error.message };
    throw error;
  }
}

/** Whether the pass is a deferred job woken for the same attempt: not a new receipt of the work. */
export function wokenFromDefer(deferredAttempt: string | null, attempt: number): boolean {
  return deferredAttempt !== null && deferredAttempt === String(attempt);
}
