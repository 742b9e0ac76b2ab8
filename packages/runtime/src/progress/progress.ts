import { z } from 'zod';
import type { progressUpdateSchema } from '../policy/progress-update.js';
import { readStoredRecord } from '../redis/stored-record.js';

/** A node's latest progress as kept for its run: what `tierflow status` shows. */
export const progressRecordSchema = z.object({
  percent: z.number().min(0).max(100).nullable(),
  note: z.string().nullable(),
  at: z.iso.datetime({ offset: true }),
});
export type ProgressRecord = z.infer<typeof progressRecordSchema>;

/** One write a second at most per job: a chatty specialist costs a Redis write a second, not one a call. */
export const PROGRESS_INTERVAL_MS = 1_000;

/** The record of an update made at `now`. Pure. */
export function progressRecord(update: z.output<typeof progressUpdateSchema>, now: number): ProgressRecord {
  return { percent: update.percent === undefined ? null : Math.round(update.percent * 10) / 10, note: update.note ?? null, at: new Date(now).toISOString() };
}

/** `40% loading the data`: a record in a few words, for the audit trail and the tree. Pure. */
export function progressText(record: Pick<ProgressRecord, 'percent' | 'note'>): string {
  return [record.percent === null ? '' : `${record.percent}%`, record.note ?? ''].filter((part) => part !== '').join(' ');
}

/**
 * Whether an update at `now` is written: the first always, later ones once `intervalMs` has
 * passed since the last write; sooner ones are dropped (the outcome that follows says more). Pure.
 */
export function progressDue(lastWriteAt: number | null, now: number, intervalMs: number): boolean {
  return lastWriteAt === null || now - lastWriteAt >= intervalMs;
}

/** Each job's latest progress, by message id, read leniently: an unreadable record is left out. Pure. */
export function readProgress(hash: Readonly<Record<string, string>>): Map<string, ProgressRecord> {
  const records = new Map<string, ProgressRecord>();
  for (const [id, text] of Object.entries(hash)) {
    const read = readStoredRecord(text, progressRecordSchema, { what: 'a progress record' });
    if (read.ok) records.set(id, read.value);
  }
  return records;
}
