import { z } from 'zod';

/**
 * What a waiting client takes from one entry of the Monitor queue's event stream: a root's end
 * (completed with its return value as JSON text, or failed), an event it has no use for, or an
 * entry that is not what BullMQ writes — told by kind, so each kind can be reported once.
 */
export type MonitorEvent =
  | { readonly kind: 'completed'; readonly rootId: string; readonly returnvalue: string }
  | { readonly kind: 'failed'; readonly rootId: string }
  | { readonly kind: 'other' }
  | { readonly kind: 'malformed'; readonly problem: MalformedEventKind; readonly detail: string };

export type MalformedEventKind = 'unreadable_entry' | 'no_event_name' | 'bad_completed' | 'bad_failed';

/** One entry as XREAD gives it: its id and its flat field/value list. */
export interface StreamEntry {
  readonly id: string;
  readonly fields: unknown;
}

const readReplySchema = z.array(z.tuple([z.string(), z.array(z.unknown())])).nullable();
const entrySchema = z.tuple([z.string(), z.unknown()]);
const fieldsSchema = z.array(z.string()).refine((fields) => fields.length % 2 === 0, 'an odd number of fields');
const completedSchema = z.object({ jobId: z.string().min(1), returnvalue: z.string() });
const failedSchema = z.object({ jobId: z.string().min(1) });

/**
 * The entries of an XREAD reply for one stream, in order; `unreadable` counts those without even
 * an id (Redis never sends one, but nothing read from Redis is trusted). Null when the reply is
 * not an XREAD reply at all.
 */
export function entriesOf(reply: unknown): { readonly entries: readonly StreamEntry[]; readonly unreadable: number } | null {
  const parsed = readReplySchema.safeParse(reply);
  if (!parsed.success) return null;
  const entries: StreamEntry[] = [];
  let unreadable = 0;
  for (const [, items] of parsed.data ?? []) {
    for (const item of items) {
      const entry = entrySchema.safeParse(item);
      if (entry.success) entries.push({ id: entry.data[0], fields: entry.data[1] });
      else unreadable++;
    }
  }
  return { entries, unreadable };
}

/** Reads one entry's fields; never throws. */
export function monitorEventOf(fields: unknown): MonitorEvent {
  const flat = fieldsSchema.safeParse(fields);
  if (!flat.success) return malformed('unreadable_entry', 'fields are not a list of field/value strings');
  // A plain record: fromEntries defines own properties, so a field named `__proto__` is just a field.
  const record = Object.fromEntries(pairs(flat.data));
  const event = record.event;
  if (event === undefined) return malformed('no_event_name', `fields ${JSON.stringify(Object.keys(record).slice(0, 8))}`);
  if (event === 'completed') {
    const completed = completedSchema.safeParse(record);
    return completed.success
      ? { kind: 'completed', rootId: completed.data.jobId, returnvalue: completed.data.returnvalue }
      : malformed('bad_completed', 'a completed event needs a jobId and a returnvalue');
  }
  if (event === 'failed') {
    const failed = failedSchema.safeParse(record);
    return failed.success ? { kind: 'failed', rootId: failed.data.jobId } : malformed('bad_failed', 'a failed event needs a jobId');
  }
  return { kind: 'other' };
}

function pairs(flat: readonly string[]): [string, string][] {
  const result: [string, string][] = [];
  for (let index = 0; index + 1 < flat.length; index += 2) result.push([flat[index]!, flat[index + 1]!]);
  return result;
}

function malformed(problem: MalformedEventKind, detail: string): MonitorEvent {
  return { kind: 'malformed', problem, detail };
}
