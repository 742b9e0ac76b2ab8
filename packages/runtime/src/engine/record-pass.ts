import type { PassEnd, RecordEntryInput } from '../recording/record-entry.js';
import type { Engine, Pass } from './pass.js';

/**
 * What a pass records of its node (docs/operations.md#recording): the delegation as the node took
 * it up (on a delivery, not a parent resuming), how the pass ended, and with an answer its outcome,
 * all as one stream entry: on the answer's own batch, or sent at once for a pass that parks, waits
 * for a person or is retried. With recording off (`none`) nothing is made.
 */
type Recording = Pick<Engine, 'recorder' | 'clock'>;

/** The entries of a pass's end: its receipt if it had one, the pass, then `extra` (an answer's outcome). */
export async function passEndEntries(
  engine: Recording,
  pass: Pick<Pass, 'job' | 'assignment' | 'startedAt' | 'receipt' | 'unrecordedCalls'>,
  end: PassEnd,
  error: unknown,
  extra: readonly RecordEntryInput[] = [],
): Promise<RecordEntryInput[]> {
  const { recorder } = engine;
  const { job, assignment, receipt } = pass;
  const node = assignment.id;
  const entries: RecordEntryInput[] = [];
  if (receipt)
    entries.push({ kind: 'delegation', node, tier: recorder.tier, at: receipt.at, attempt: receipt.attempt, message: receipt.message, context: await receipt.context, edits: [...receipt.edits] });
  entries.push({
    kind: 'pass',
    node,
    tier: recorder.tier,
    worker: recorder.worker,
    started_at: pass.startedAt,
    ended_at: engine.clock.now(),
    attempt: job.attemptsMade + 1,
    end,
    error: error === null || error === undefined ? null : error instanceof Error ? error.message : JSON.stringify(error),
    queued_at: Number.isFinite(job.timestamp) ? job.timestamp : null,
    calls_unrecorded: pass.unrecordedCalls(),
  });
  return [...entries, ...extra];
}

/** A pass that ended without answering, recorded at once (not awaited; a failure is logged by the recorder). */
export function recordPassEnd(engine: Recording, pass: Pick<Pass, 'job' | 'assignment' | 'startedAt' | 'receipt' | 'unrecordedCalls'>, end: PassEnd, error: unknown): void {
  if (!engine.recorder.on) return;
  void passEndEntries(engine, pass, end, error).then((entries) => engine.recorder.write(null, pass.assignment.rootId, entries));
}
