import { z } from 'zod';
import { messageIdSchema } from './identifiers.js';
import { tierNameSchema } from './tiers.js';

/** The longest question or answer kept: enough for a paragraph, not a document. */
export const MAX_CLARIFICATION_CHARS = 4_000;

const text = z
  .string()
  .trim()
  .min(1, { message: 'must not be blank' })
  .max(MAX_CLARIFICATION_CHARS, { message: `must be at most ${MAX_CLARIFICATION_CHARS} characters` });

/**
 * A question behind a `needs_clarification` outcome: asked by the work whose outcome message is
 * `id`, and carried up unchanged by every tier above it (docs/protocol.md#clarification).
 */
export const questionSchema = z
  .looseObject({
    id: messageIdSchema.meta({ description: 'The id of the outcome message that asked: what an answer names.' }),
    question: text,
    tier: tierNameSchema.meta({ description: 'The tier that asked.' }),
  })
  .meta({ description: 'A question asked with needs_clarification.' });
export type Question = z.output<typeof questionSchema>;

/** A question and its answer, as re-sent work carries them in `task_data.clarifications`. */
export const clarificationSchema = z
  .looseObject({
    question_id: messageIdSchema,
    question: text,
    answer: text,
  })
  .meta({ description: 'A question the run asked and the answer a person gave.' });
export type Clarification = z.output<typeof clarificationSchema>;

const clarificationsSchema = z.array(clarificationSchema);

/**
 * The clarifications a delegation carries in `task_data.clarifications`, oldest first; none when
 * the field is absent or not a list of clarifications (it is the sender's data, read leniently).
 */
export function clarificationsOf(taskData: Readonly<Record<string, unknown>>): Clarification[] {
  // Most work carries none: no parse (and no error object) for them, on every hop.
  if (taskData.clarifications === undefined) return [];
  const parsed = clarificationsSchema.safeParse(taskData.clarifications);
  return parsed.success ? parsed.data : [];
}

/** The answer a delegation carries to `question` (matched by its text), or null. */
export function answerTo(taskData: Readonly<Record<string, unknown>>, question: string): string | null {
  const wanted = question.trim();
  return clarificationsOf(taskData).findLast((clarification) => clarification.question === wanted)?.answer ?? null;
}
