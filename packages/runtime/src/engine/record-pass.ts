import type { Beads } from '@tierflow/beads';
import type { Job } from 'bullmq';
import type { Assignment } from '../policy/handler.js';
import type { PassEnd, RecordEntryInput } from '../recording/record-entry.js';
import type { RunRecorder } from '../recording/run-recorder.js';
import type { Engine, Pass } from './pass.js';

/**
 * What a pass records of its node (docs/operations.md#recording): the delegation as the node took
 * it up (on a delivery, not a parent resuming), how the pass ended, and with an answer its outcome,
 * all as one stream entry: on the answer's own batch, or sent at once for a pass that parks, waits
 * for a person or is retried. With recording off (`none`) nothing is made.
 */
type Recording = Pick<Engine, 'recorder' | 'clock'>;

/** The delegation a node took up, held from its pass's opening to its end. */
export interface Receipt {
  readonly at: number;
  readonly attempt: number;
  readonly message: unknown;
  /** A fork's edits made to it (`tierflow rerun --from … --set …`). */
  readonly edits: readonly string[];
  /** Its context references' values, read as the pass opens (under `full` only). */
  readonly context: Promise<Record<string, unknown>>;
}

/** A delivery's receipt, its context references read now without waiting (null with recording off). */
export function openReceipt(recorder: RunRecorder, now: number, job: Job, assignment: Assignment, beads: Pick<Beads, 'getMany'>, edits: readonly string[]): Receipt | null {
  if (!recorder.on) return null;
  const refs = recorder.mode === 'full' ? assignment.payload.context_refs : [];
  const context =
    refs.length === 0
      ? Promise.resolve({})
      : beads.getMany(refs).then(
          (values) => Object.fromEntries(refs.map((ref, index) => [ref, values[index] ?? null])),
          () => Object.fromEntries(refs.map((ref) => [ref, null])),
        );
  // The message as the node took it up: its payload as the interceptors and a fork's edits left it.
  const message = assignment.message ? { ...assignment.message, payload: assignment.payload } : { root_id: assignment.rootId, payload: assignment.payload };
  return { at: now, attempt: job.attemptsMade + 1, message, edits, context };
}

/** The entries of a pass's end: its receipt if it had one, the pass, then `extra` (an answer's outcome). */
export async function passEndEntries(
  engine: Recording,
  pass: Pick<Pass, 'job' | 'assignment' | 'startedAt' | 'receipt'>,
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
  });
  return [...entries, ...extra];
}

/** A pass that ended without answering, recorded at once (not awaited; a failure is logged by the recorder). */
export function recordPassEnd(engine: Recording, pass: Pick<Pass, 'job' | 'assignment' | 'startedAt' | 'receipt'>, end: PassEnd, error: unknown): void {
  if (!engine.recorder.on) return;
  void passEndEntries(engine, pass, end, error).then((entries) => engine.recorder.write(null, pass.assignment.rootId, entries));
}
