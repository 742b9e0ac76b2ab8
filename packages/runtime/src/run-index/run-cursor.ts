import { TierflowError } from '@tierflow/protocol';
import { z } from 'zod';

/**
 * Where a run stands in a listing: latest first, by submission time, then by root id (descending,
 * as a sorted set orders members of one score read backwards). Every cell orders its runs so, so
 * one position says where to go on in all of them. Pure.
 */
export interface RunPosition {
  /** When it was submitted (ms). */
  readonly at: number;
  readonly id: string;
}

/** Negative when `a` is listed before `b`, positive after, 0 for the same run. */
export function comparePositions(a: RunPosition, b: RunPosition): number {
  if (a.at !== b.at) return b.at - a.at;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

/** Whether `position` is listed after `cursor` (everything is, without one). */
export function isAfter(position: RunPosition, cursor: RunPosition | null): boolean {
  return cursor === null || comparePositions(position, cursor) > 0;
}

const cursorSchema = z.object({ v: z.literal(1), at: z.number().int().nonnegative(), id: z.string().min(1).max(200) });

/** A position as an opaque cursor: what a page hands back for the next one. */
export function encodeCursor(position: RunPosition): string {
  return Buffer.from(JSON.stringify({ v: 1, at: position.at, id: position.id })).toString('base64url');
}

/**
 * A cursor back into the position it was made from.
 *
 * @throws TierflowError (code `invalid_argument`) for text that is not a cursor of this listing.
 */
export function decodeCursor(cursor: string): RunPosition {
  let value: unknown = null;
  try {
    value = /^[\w-]{1,400}$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  } catch {
    // Not JSON: refused below.
  }
  const parsed = cursorSchema.safeParse(value);
  if (!parsed.success) throw TierflowError.permanent(`cursor ${JSON.stringify(cursor.slice(0, 60))} is not one a listing of runs gave`, { code: 'invalid_argument' });
  return { at: parsed.data.at, id: parsed.data.id };
}

/** One cell's page: the runs it found, in order, and how far it looked. */
export interface CellPage<T extends RunPosition> {
  readonly runs: readonly T[];
  /** The last position it examined, everything before it included; null when it has nothing further. */
  readonly frontier: RunPosition | null;
}

/**
 * The cells' pages as one page of at most `limit` runs, and where the next one starts (null when
 * no cell has anything further). A run listed past a cell's frontier is held back: that cell has
 * not looked there yet, so the next page, which starts no further than that frontier, lists it in
 * its place among the other cell's runs.
 */
export function mergePages<T extends RunPosition>(pages: readonly CellPage<T>[], limit: number): { readonly runs: T[]; readonly next: RunPosition | null } {
  const frontiers = pages.flatMap((page) => (page.frontier === null ? [] : [page.frontier])).sort(comparePositions);
  const boundary = frontiers[0] ?? null;
  const candidates = pages
    .flatMap((page) => page.runs)
    .filter((run) => boundary === null || comparePositions(run, boundary) <= 0)
    .sort(comparePositions);
  const runs = candidates.slice(0, limit);
  if (candidates.length > limit) {
    const last = runs.at(-1)!;
    return { runs, next: { at: last.at, id: last.id } };
  }
  return { runs, next: boundary };
}
