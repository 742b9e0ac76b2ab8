import type { AuditKind, AuditRecord } from '@tierflow/runtime/admin';

/** Where a page of a run's audit trail starts and how long it is: after `cursor` (a stream id; none: from the start), at most `limit` entries of `kinds`. */
export interface AuditPageQuery {
  readonly kinds?: readonly AuditKind[];
  readonly cursor?: string;
  readonly limit?: number;
}

/** A page of the trail, with the cursors of the pages after and before it (null: none). */
export interface AuditPage {
  readonly entries: AuditRecord[];
  /** Entries of the asked kinds in the whole trail. */
  readonly total: number;
  readonly next_cursor: string | null;
  readonly prev_cursor: string | null;
}

/** The cursor of the first page: before every stream id. */
export const FIRST_PAGE = '0-0';

/** A page of a run's audit trail (pure): the entries of the kinds asked, after the cursor, oldest first. Without a limit, all of them. */
export function auditPage(records: readonly AuditRecord[], query: AuditPageQuery): AuditPage {
  const kinds = query.kinds && query.kinds.length > 0 ? new Set<string>(query.kinds) : null;
  const shown = kinds ? records.filter((record) => kinds.has(record.kind)) : [...records];
  const start = query.cursor === undefined ? 0 : firstAfter(shown, query.cursor);
  const limit = query.limit ?? shown.length;
  const entries = shown.slice(start, start + limit);
  const next = start + limit < shown.length ? (entries.at(-1)?.stream_id ?? null) : null;
  const prev = start === 0 ? null : start - limit <= 0 ? FIRST_PAGE : shown[start - limit - 1]!.stream_id;
  return { entries, total: shown.length, next_cursor: next, prev_cursor: prev };
}

/** The index of the first entry after `cursor`, by stream id (entries are in stream order). */
function firstAfter(records: readonly AuditRecord[], cursor: string): number {
  const after = streamId(cursor);
  if (after === null) return 0;
  const index = records.findIndex((record) => {
    const id = streamId(record.stream_id);
    return id !== null && (id[0] > after[0] || (id[0] === after[0] && id[1] > after[1]));
  });
  return index === -1 ? records.length : index;
}

/** A stream id `<ms>-<seq>` as two numbers; null when it is not one. */
export function streamId(text: string): [bigint, bigint] | null {
  const match = /^(\d{1,20})(?:-(\d{1,20}))?$/.exec(text);
  return match ? [BigInt(match[1]!), BigInt(match[2] ?? '0')] : null;
}
