import { MAX_HANDOFF_NOTES } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { aggregateMetadata, type AggregatedMetadata } from './handoff-metadata.js';

describe('aggregateMetadata', () => {
  it.each<[string, AggregatedMetadata, AggregatedMetadata[], AggregatedMetadata]>([
    ['no metadata anywhere', {}, [{}, {}], {}],
    ['sums sources_count over those that give one', {}, [{ sources_count: 3 }, {}, { sources_count: 4 }], { sources_count: 7 }],
    ['counts its own sources too', { sources_count: 1 }, [{ sources_count: 2 }], { sources_count: 3 }],
    ['keeps a zero count', {}, [{ sources_count: 0 }], { sources_count: 0 }],
    ['unions gaps, own first, without repeats', { gaps: ['b'] }, [{ gaps: ['a', 'b'] }, { gaps: ['c', 'a'] }], { gaps: ['b', 'a', 'c'] }],
    ['unions assumptions', {}, [{ assumptions: ['x'] }, { assumptions: ['x', 'y'] }], { assumptions: ['x', 'y'] }],
    ['keeps an empty list given', {}, [{ gaps: [] }], { gaps: [] }],
    ['takes the oldest freshness', {}, [{ data_freshness: '2026-02-28' }, { data_freshness: '2025-12-01' }, { data_freshness: '2026-03-01T00:00:00Z' }], { data_freshness: '2025-12-01' }],
    ['compares dates with date-times', {}, [{ data_freshness: '2026-02-28T10:00:00+02:00' }, { data_freshness: '2026-02-28' }], { data_freshness: '2026-02-28' }],
    ['compares date-times across offsets', {}, [{ data_freshness: '2026-02-28T10:00:00+02:00' }, { data_freshness: '2026-02-28T09:00:00Z' }], { data_freshness: '2026-02-28T10:00:00+02:00' }],
    ['keeps its own freshness when older', { data_freshness: '2020-01-01' }, [{ data_freshness: '2026-01-01' }], { data_freshness: '2020-01-01' }],
  ])('%s', (_name, own, children, expected) => {
    expect(aggregateMetadata(own, children)).toEqual(expected);
  });

  it(`caps the notes at ${MAX_HANDOFF_NOTES}, first seen kept`, () => {
    const many = Array.from({ length: MAX_HANDOFF_NOTES + 10 }, (_, index) => `gap ${index}`);
    const result = aggregateMetadata({}, [{ gaps: many.slice(0, 30) }, { gaps: many.slice(20) }]);
    expect(result.gaps).toEqual(many.slice(0, MAX_HANDOFF_NOTES));
  });

  it('does not change what it is given', () => {
    const child = { gaps: ['a'] };
    aggregateMetadata({ gaps: ['b'] }, [child]);
    expect(child).toEqual({ gaps: ['a'] });
  });
});
