import type { PassEnd, PassEntry } from '../recording/record-entry.js';
import type { RedisWrites } from '../redis/fenced-batch.js';
import type { Engine, Pass } from './pass.js';

/**
 * What a pass records of its node (docs/operations.md#recording), beside the writes it makes
 * anyway: the delegation as the node took it up, and how the pass ended. With recording off
 * (`none`) these cost nothing.
 */
type Recording = Pick<Engine, 'recorder' | 'clock' | 'log'>;

/**
 * The delegation as the node takes it up (after the receive interceptors and a fork's edits), with
 * the values its context references point at under `full`. Not awaited by the pass: it is on the
 * wire before the pass's next command.
 */
export function recordReceipt(engine: Recording, pass: Pass, edits: readonly string[]): void {
  const { recorder } = engine;
  if (!recorder.on) return;
  const { assignment, job } = pass;
  const refs = recorder.mode === 'full' ? assignment.payload.context_refs : [];
  // The message as the node took it up: its payload as the interceptors and a fork's edits left it.
  const message = assignment.message ? { ...assignment.message, payload: assignment.payload } : { root_id: assignment.rootId, payload: assignment.payload };
  const at = engine.clock.now();
  const values = refs.length === 0 ? Promise.resolve([]) : pass.beads.getMany(refs).catch(() => refs.map(() => null));
  void values.then((read) => {
    const context = Object.fromEntries(refs.map((ref, index) => [ref, read[index] ?? null]));
    recorder.delegation(assignment.rootId, assignment.id, message, job.attemptsMade + 1, at, context, edits);
  });
}

/** How a pass ended, as its node's recording keeps it: on `writes` when the pass has a batch to ride, else at once. */
export function recordPassEnd(engine: Recording, pass: Pick<Pass, 'job' | 'assignment' | 'startedAt'>, end: PassEnd, error: unknown, writes: RedisWrites | null = null): void {
  const { recorder } = engine;
  if (!recorder.on) return;
  const { job, assignment } = pass;
  const entry: Omit<PassEntry, 'kind' | 'tier' | 'worker'> = {
    node: assignment.id,
    started_at: pass.startedAt,
    ended_at: engine.clock.now(),
    attempt: job.attemptsMade + 1,
    end,
    error: error === null || error === undefined ? null : error instanceof Error ? error.message : JSON.stringify(error),
    queued_at: Number.isFinite(job.timestamp) ? job.timestamp : null,
  };
  recorder.pass(writes, assignment.rootId, entry);
}
