import { z } from 'zod';
import { MAX_CLARIFICATION_CHARS } from './clarification.js';
import { messageIdSchema } from './identifiers.js';
import { tierNameSchema } from './tiers.js';

const text = z
  .string()
  .trim()
  .min(1, { message: 'must not be blank' })
  .max(MAX_CLARIFICATION_CHARS, { message: `must be at most ${MAX_CLARIFICATION_CHARS} characters` });

/**
 * What a `blocked` outcome waits on: reported by the work whose outcome message is `id`, and
 * carried up unchanged by every tier above it (docs/protocol.md#blocked-work).
 */
export const blockerSchema = z
  .looseObject({
    id: messageIdSchema.meta({ description: 'The id of the outcome message that reported it: what an unblock names.' }),
    blocker: text.meta({ description: 'What the work waits on, in words.' }),
    tier: tierNameSchema.meta({ description: 'The tier that reported it.' }),
  })
  .meta({ description: 'An external dependency a blocked outcome waits on.' });
export type Blocker = z.output<typeof blockerSchema>;

/** A blocker lifted, as re-sent work carries it in `task_data.unblocked`: the blocker and a note on what changed. */
export const unblockNoteSchema = z
  .looseObject({
    blocker_id: messageIdSchema,
    blocker: text,
    note: z.string().max(MAX_CLARIFICATION_CHARS).default(''),
  })
  .meta({ description: 'A blocker the run reported and the note given when it was lifted.' });
export type UnblockNote = z.output<typeof unblockNoteSchema>;

const unblockNotesSchema = z.array(unblockNoteSchema);

/**
 * The unblock notes a delegation carries in `task_data.unblocked`, oldest first; none when the
 * field is absent or not a list of notes (it is the sender's data, read leniently).
 */
export function unblockedOf(taskData: Readonly<Record<string, unknown>>): UnblockNote[] {
  if (taskData.unblocked === undefined) return [];
  const parsed = unblockNotesSchema.safeParse(taskData.unblocked);
  return parsed.success ? parsed.data : [];
}

/** The note a delegation carries for `blocker` (matched by its text), or null when it was not lifted. */
export function unblockNoteFor(taskData: Readonly<Record<string, unknown>>, blocker: string): string | null {
  const wanted = blocker.trim();
  return unblockedOf(taskData).findLast((note) => note.blocker === wanted)?.note ?? null;
}
