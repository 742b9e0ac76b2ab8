import type { AuditRecord } from '@tierflow/runtime/admin';
import { describe, expect, it } from 'vitest';
import { auditPage, FIRST_PAGE, streamId } from './audit-page.js';

const record = (n: number, kind: AuditRecord['kind']): AuditRecord => ({
  stream_id: `1000-${n}`,
  time: '',
  from: 'x',
  to: 'y',
  kind,
  direction: 'sent',
  id: `m${n}`,
  correlation_id: '',
  status: '',
  confidence: null,
  by: 'x',
  attempt: null,
  detail: '',
});
const trail = Array.from({ length: 7 }, (_, n) => record(n, n % 3 === 0 ? 'progress' : 'delegation'));
const ids = (page: { entries: AuditRecord[] }) => page.entries.map((entry) => entry.id);

describe('auditPage', () => {
  it('gives the whole trail without a limit', () => {
    expect(auditPage(trail, {})).toMatchObject({ total: 7, next_cursor: null, prev_cursor: null });
    expect(ids(auditPage(trail, {}))).toHaveLength(7);
  });

  it('pages forward with next_cursor and back with prev_cursor', () => {
    const first = auditPage(trail, { limit: 3 });
    expect(ids(first)).toEqual(['m0', 'm1', 'm2']);
    expect(first).toMatchObject({ next_cursor: '1000-2', prev_cursor: null });
    const second = auditPage(trail, { limit: 3, cursor: first.next_cursor! });
    expect(ids(second)).toEqual(['m3', 'm4', 'm5']);
    expect(second.prev_cursor).toBe(FIRST_PAGE);
    const third = auditPage(trail, { limit: 3, cursor: second.next_cursor! });
    expect(ids(third)).toEqual(['m6']);
    expect(third).toMatchObject({ next_cursor: null, prev_cursor: '1000-2' });
    expect(ids(auditPage(trail, { limit: 3, cursor: third.prev_cursor! }))).toEqual(['m3', 'm4', 'm5']);
  });

  it('keeps the kinds asked, and counts them', () => {
    const page = auditPage(trail, { kinds: ['progress'], limit: 2 });
    expect(ids(page)).toEqual(['m0', 'm3']);
    expect(page).toMatchObject({ total: 3, next_cursor: '1000-3' });
    expect(ids(auditPage(trail, { kinds: ['progress'], cursor: '1000-3' }))).toEqual(['m6']);
  });

  it('reads stream ids, with or without their sequence', () => {
    expect(streamId('5-2')).toEqual([5n, 2n]);
    expect(streamId('5')).toEqual([5n, 0n]);
    expect(streamId('x')).toBeNull();
  });
});
