import { z } from 'zod';

/** What a handler reports mid-task (the protocol's progress updates: docs/protocol.md): how far along, and a word on what it is doing. */
export const progressUpdateSchema = z
  .strictObject({
    percent: z.number().min(0).max(100).optional(),
    note: z.string().min(1).max(200).optional(),
  })
  .refine((update) => update.percent !== undefined || update.note !== undefined, { message: 'a progress update gives a percent, a note, or both' });
export type ProgressUpdate = z.input<typeof progressUpdateSchema>;
