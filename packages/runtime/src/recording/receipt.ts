import type { BeadsStore } from '@tierflow/beads';
import type { Job } from 'bullmq';
import type { Assignment } from '../policy/handler.js';
import type { RunRecorder } from './run-recorder.js';

/** The delegation a node took up, held from its pass's opening to its end. */
export interface Receipt {
  readonly at: number;
  readonly attempt: number;
  readonly message: unknown;
  /** A fork's edits made to it (`tierflow rerun --from … --set …`). */
  readonly edits: readonly string[];
  /** Its context references' values as recorded (`{ $context: <sha256> }`, or null: none), read as the pass opens (under `full` only). */
  readonly context: Promise<Record<string, unknown>>;
}

/**
 * A delivery's receipt, its context references read now without waiting (null with recording
 * off). Under `full` each value read goes to the run's recording once (RunRecorder.context), and
 * the receipt names it by its hash.
 */
export function openReceipt(recorder: RunRecorder, now: number, job: Job, assignment: Assignment, beads: Pick<BeadsStore, 'getTexts'>, edits: readonly string[]): Receipt | null {
  if (!recorder.on) return null;
  const refs = recorder.mode === 'full' ? assignment.payload.context_refs : [];
  const context =
    refs.length === 0
      ? Promise.resolve({})
      : beads.getTexts(refs).then(
          (texts) => Object.fromEntries(refs.map((ref, index) => [ref, recorder.context(assignment.rootId, assignment.id, now, ref, texts[index] ?? null)])),
          () => Object.fromEntries(refs.map((ref) => [ref, null])),
        );
  // The message as the node took it up: its payload as the interceptors and a fork's edits left it.
  const message = assignment.message ? { ...assignment.message, payload: assignment.payload } : { root_id: assignment.rootId, payload: assignment.payload };
  return { at: now, attempt: job.attemptsMade + 1, message, edits, context };
}
