import { describe, expect, it } from 'vitest';
import { comparePositions, decodeCursor, encodeCursor, isAfter, mergePages, type CellPage, type RunPosition } from './run-cursor.js';

const at = (time: number, id: string): RunPosition => ({ at: time, id });
const ids = (runs: readonly RunPosition[]): string[] => runs.map((run) => run.id);

describe('positions', () => {
  it('list the latest first, and runs of one millisecond by id, backwards as a sorted set read backwards', () => {
    const runs = [at(1, 'a'), at(3, 'b'), at(2, 'c'), at(3, 'd')];
    expect(ids([...runs].sort(comparePositions))).toEqual(['d', 'b', 'c', 'a']);
    expect(isAfter(at(3, 'b'), at(3, 'd'))).toBe(true);
    expect(isAfter(at(3, 'd'), at(3, 'd'))).toBe(false);
    expect(isAfter(at(4, 'a'), at(3, 'd'))).toBe(false);
    expect(isAfter(at(4, 'a'), null)).toBe(true);
  });
});

describe('cursors', () => {
  it('go there and back, and are opaque words safe in a URL', () => {
    const cursor = encodeCursor(at(1_700_000_000_123, 'ec36a528-5b2f'));
    expect(cursor).toMatch(/^[\w-]+$/);
    expect(decodeCursor(cursor)).toEqual(at(1_700_000_000_123, 'ec36a528-5b2f'));
  });

  it('refuse what no listing gave, with invalid_argument', () => {
    const forged = Buffer.from(JSON.stringify({ v: 2, at: 1, id: 'x' })).toString('base64url');
    for (const bad of ['', 'not a cursor', 'e30', forged, 'x'.repeat(500)]) expect(() => decodeCursor(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_argument' }) as Error);
  });
});

describe('mergePages', () => {
  const page = (runs: RunPosition[], frontier: RunPosition | null): CellPage<RunPosition> => ({ runs, frontier });

  it('merges exhausted cells in order, with no next page', () => {
    const merged = mergePages([page([at(5, 'a'), at(1, 'b')], null), page([at(3, 'c')], null)], 10);
    expect(ids(merged.runs)).toEqual(['a', 'c', 'b']);
    expect(merged.next).toBeNull();
  });

  it('cuts at the limit, the next page starting after the last run listed', () => {
    const merged = mergePages([page([at(5, 'a'), at(4, 'b')], at(4, 'b')), page([at(6, 'c'), at(3, 'd')], at(3, 'd'))], 2);
    expect(ids(merged.runs)).toEqual(['c', 'a']);
    expect(merged.next).toEqual(at(5, 'a'));
  });

  it('holds back runs past a cell that stopped looking, and goes on from where it stopped', () => {
    // Cell 1 looked down to 4 and found one; cell 2 found runs further back, which must wait for cell 1 to look there.
    const merged = mergePages([page([at(9, 'a')], at(4, 'x')), page([at(8, 'b'), at(2, 'c')], null)], 10);
    expect(ids(merged.runs)).toEqual(['a', 'b']);
    expect(merged.next).toEqual(at(4, 'x'));
    const next = mergePages(
      [page([at(1, 'd')], null), page([at(2, 'c')], null)].map((cell) => ({ ...cell, runs: cell.runs.filter((run) => isAfter(run, merged.next)) })),
      10,
    );
    expect(ids(next.runs)).toEqual(['c', 'd']);
    expect(next.next).toBeNull();
  });

  it('pages through every run once, whatever the page size', () => {
    const cells = [
      [at(10, 'a'), at(7, 'b'), at(7, 'c'), at(1, 'd')],
      [at(9, 'e'), at(7, 'f'), at(2, 'g')],
      [at(7, 'h'), at(7, 'a2')],
    ].map((runs) => [...runs].sort(comparePositions));
    const all = ids(cells.flat().sort(comparePositions));
    for (const limit of [1, 2, 3, 5, 20]) {
      const seen: string[] = [];
      let cursor: RunPosition | null = null;
      for (let guard = 0; guard < 50; guard++) {
        // Each cell answers as readIndexPage does: the first `limit` after the cursor, its frontier the last of them when it filled the page.
        const pages = cells.map((runs) => {
          const after = runs.filter((run) => isAfter(run, cursor)).slice(0, limit);
          return page(after, after.length === limit ? after.at(-1)! : null);
        });
        const merged = mergePages(pages, limit);
        seen.push(...ids(merged.runs));
        cursor = merged.next;
        if (cursor === null) break;
      }
      expect(seen, `limit ${limit}`).toEqual(all);
    }
  });
});
