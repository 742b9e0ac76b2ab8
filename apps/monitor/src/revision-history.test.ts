import { describe, expect, it } from 'vitest';
import { revisionFold, revisionsOf } from './revision-history.js';

describe('revisionsOf', () => {
  it.each<[unknown, number]>([
    [{ revisions: 2 }, 2],
    [{ revisions: 0 }, 0],
    [{}, 0],
    [{ revisions: -1 }, 0],
    [{ revisions: 1.5 }, 0],
    [{ revisions: '3' }, 0],
  ])('%j → %d', (resources_used, revisions) => {
    expect(revisionsOf({ resources_used: resources_used as Record<string, never> })).toBe(revisions);
  });
});

describe('revisionFold', () => {
  it('adds the revisions of a run that revised, and whether it then succeeded', () => {
    expect(revisionFold('report', 2, 'success')).toEqual({ key: 'history/revisions/report', increments: { revisions: 2, succeeded: 1 } });
    expect(revisionFold('a/b', 1, 'partial')).toEqual({ key: 'history/revisions/a%2Fb', increments: { revisions: 1, succeeded: 0 } });
  });

  it('adds nothing for a run that never revised', () => {
    expect(revisionFold('report', 0, 'failed')).toBeNull();
  });
});
