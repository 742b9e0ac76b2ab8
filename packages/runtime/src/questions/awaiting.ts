import { blockerSchema, questionSchema } from '@tierflow/protocol';
import { z } from 'zod';

/**
 * What a job waiting for answers keeps in its step state: when it asked, until when it waits, the
 * questions, and the outcome it sends should no answer come. `kind` is absent in states written
 * before blocked work could wait.
 */
export const questionsWaitSchema = z.object({
  kind: z.literal('questions').optional(),
  asked_at: z.number(),
  until: z.number(),
  questions: z.array(questionSchema).min(1),
  /** The outcome the job would have sent, without its questions (they are `questions`). */
  draft: z.looseObject({ status: z.literal('needs_clarification'), summary: z.string() }),
});
export type QuestionsWait = z.output<typeof questionsWaitSchema>;

/**
 * What a job waiting on blocked work keeps (docs/protocol.md#blocked-work): since when, until when
 * it waits, what blocks it, and the `blocked` outcome it sends should the wait run out.
 */
export const blockedWaitSchema = z.object({
  kind: z.literal('blocked'),
  asked_at: z.number(),
  until: z.number(),
  blockers: z.array(blockerSchema).min(1),
  /** The outcome the job would have sent, without its blockers (they are `blockers`). */
  draft: z.looseObject({ status: z.literal('blocked'), summary: z.string() }),
});
export type BlockedWait = z.output<typeof blockedWaitSchema>;

/** A job's wait in its step state: for a person's answers, or for its blockers to be lifted. */
export const awaitingSchema = z.union([blockedWaitSchema, questionsWaitSchema]);
export type Awaiting = z.output<typeof awaitingSchema>;

/** Whether a wait is for blockers to be lifted (else it is for answers). */
export function isBlockedWait(awaiting: Awaiting): awaiting is BlockedWait {
  return awaiting.kind === 'blocked';
}
