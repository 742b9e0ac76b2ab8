import type { DelegationMessage } from '@tierflow/protocol';
import type { Job, JobsOptions, Queue } from 'bullmq';
import type { RuntimeOptions } from '../config/options.js';
import { bullPriority } from '../messages/queues.js';

/** The backoff type our workers' `backoffStrategy` answers (core's exponential backoff with jitter and cap). */
export const BACKOFF_TYPE = 'tierflow';

/**
 * Job options every Tierflow job shares: id = message id, and retries. Retention is not here: the
 * workers apply their own (`keepFinishedMs`), so the deployment decides it, not whoever enqueued.
 */
export function jobOptions(id: string, priority: number, runtime: RuntimeOptions, timestamp?: number): JobsOptions & { jobId: string } {
  return {
    jobId: id,
    // When it was enqueued, on the deployment's clock rather than the adding host's.
    ...(timestamp === undefined ? {} : { timestamp }),
    priority: bullPriority(priority),
    attempts: runtime.retry.attempts,
    backoff: { type: BACKOFF_TYPE },
  };
}

/**
 * Child jobs for a parent's delegations. `ignoreDependencyOnFailure`: a child that failed for
 * good still lets its parent resume, which reads the failure as a failed outcome. `traceOf`
 * gives a child's trace context: that of the pass that sent its round.
 */
export function childJobs(messages: readonly DelegationMessage[], parent: Job, runtime: RuntimeOptions, delayMs = 0, traceOf: (messageId: string) => string | undefined = () => undefined) {
  return messages.map((message) => {
    const trace = traceOf(message.id);
    return {
      name: message.payload.task_type,
      data: message,
      opts: {
        ...jobOptions(message.id, message.payload.priority, runtime, Date.parse(message.timestamp)),
        parent: { id: parent.id!, queue: parent.queueQualifiedName },
        ignoreDependencyOnFailure: true,
        ...(delayMs > 0 ? { delay: delayMs } : {}),
        // W3C trace context rides in BullMQ's own telemetry metadata, not in the message.
        ...(trace ? { telemetry: { metadata: trace } } : {}),
      } satisfies JobsOptions,
    };
  });
}

/**
 * Adds child jobs of a round on record that have no job (a round is sent whole, with its
 * children, by RoundSender; this is for a job lost some other way). Sent together, the calls go
 * in one write (see coalesceWrites).
 */
export async function addChildJobs(queue: Queue, jobs: ReturnType<typeof childJobs>): Promise<void> {
  await Promise.all(jobs.map((job) => queue.add(job.name, job.data, job.opts)));
}
