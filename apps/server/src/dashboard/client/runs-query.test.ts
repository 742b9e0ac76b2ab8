import { describe, expect, it } from 'vitest';
import { absoluteTime, filtersOf, runsApiPath, runsPagePath } from './runs-query.js';

describe('the runs list’s address', () => {
  it('keeps the filters given, blank ones left out, and the cursor', () => {
    const { filters, cursor } = filtersOf('?status=failed&text=+sort+&model=&specialist=sim&cursor=abc&other=1');
    expect([...filters]).toEqual([
      ['status', 'failed'],
      ['text', 'sort'],
      ['specialist', 'sim'],
    ]);
    expect(cursor).toBe('abc');
    expect(filtersOf('')).toMatchObject({ cursor: null, limit: 50 });
    expect(filtersOf('?limit=2').limit).toBe(2);
    expect(filtersOf('?limit=0').limit).toBe(50);
  });

  it('asks the API for a page of 50 with them, times made absolute', () => {
    expect(runsApiPath(filtersOf('?text=a%20b&since=2026-01-31T09:00:00Z'))).toBe('/api/runs?limit=50&text=a+b&since=2026-01-31T09%3A00%3A00Z');
    expect(runsApiPath(filtersOf('?cursor=c1&limit=5'))).toBe('/api/runs?limit=5&cursor=c1');
    expect(absoluteTime('2026-01-31T09:00+02:00')).toBe('2026-01-31T09:00+02:00');
    expect(absoluteTime('2026-01-31T09:00')).toBe(new Date('2026-01-31T09:00').toISOString());
    expect(absoluteTime('soon')).toBe('soon');
  });

  it('links the older page with the same filters', () => {
    expect(runsPagePath(filtersOf('?status=success&cursor=c1'), 'c2')).toBe('/?status=success&cursor=c2');
    expect(runsPagePath(filtersOf('?limit=2'), 'c2')).toBe('/?limit=2&cursor=c2');
    expect(runsPagePath(filtersOf(''), null)).toBe('/');
  });
});
