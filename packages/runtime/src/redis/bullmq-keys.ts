import type { Job, Queue } from 'bullmq';

/**
 * The few BullMQ keys the runtime reads or fences on directly, named in one place. BullMQ has no
 * public API for them; bullmq-keys.test.ts checks them against a real worker, so an upgrade that
 * moves them fails there rather than in production.
 */

/** The hash of a parent's processed children's return values (what `Job.getChildrenValues` reads). */
export function processedKey(job: Pick<Job, 'queueQualifiedName' | 'id'>): string {
  return `${job.queueQualifiedName}:${job.id}:processed`;
}

/** A child's field in its parent's processed hash (and in `Job.getChildrenValues`, `getIgnoredChildrenFailures`): its job key. */
export function childValueKey(queue: Pick<Queue, 'qualifiedName'>, childId: string): string {
  return `${queue.qualifiedName}:${childId}`;
}

/** The key holding the token of the worker that owns an active job. */
export function lockKey(job: Pick<Job, 'queueQualifiedName' | 'id'>): string {
  return `${job.queueQualifiedName}:${job.id}:lock`;
}

/**
 * The processed values as `Job.getChildrenValues` gives them, each parsed from JSON, except that
 * a value that is not JSON stays as its text instead of throwing: the parent then reads it as a
 * child's invalid outcome, rather than failing the whole pass on someone else's bytes.
 */
export function parseChildValues(raw: Readonly<Record<string, string>>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, text] of Object.entries(raw)) {
    try {
      values[key] = JSON.parse(text) as unknown;
    } catch {
      values[key] = text;
    }
  }
  return values;
}
