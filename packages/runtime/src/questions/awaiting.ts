import { questionSchema } from '@tierflow/protocol';
import { z } from 'zod';

/**
 * What a waiting job keeps in its step state: when it asked, until when it waits, the questions,
 * and the outcome it sends should no answer come.
 */
export const awaitingSchema = z.object({
  asked_at: z.number(),
  until: z.number(),
  questions: z.array(questionSchema).min(1),
  /** The outcome the job would have sent, without its questions (they are `questions`). */
  draft: z.looseObject({ status: z.literal('needs_clarification'), summary: z.string() }),
});
export type Awaiting = z.output<typeof awaitingSchema>;
