import type { AuditRecord } from '@tierflow/runtime/admin';
import { describe, expect, it } from 'vitest';
import { renderAudit } from './render-audit.js';

const record = (overrides: Partial<AuditRecord>): AuditRecord => ({
  stream_id: '1-0',
  time: '2026-01-01T00:00:00.000Z',
  from: 'ROUTING_DISPATCHER',
  to: 'SPECIALIZED_FLEET',
  kind: 'delegation',
  direction: 'sent',
  id: 'r.0-0.0-0.0-0',
  correlation_id: 'r.0-0.0-0',
  status: '',
  confidence: null,
  by: 'ROUTING_DISPATCHER',
  attempt: null,
  detail: 'execute_code',
  ...overrides,
});

describe('renderAudit', () => {
  it('prints one aligned line per entry under a header, tiers by their short names', () => {
    const text = renderAudit([
      record({}),
      record({ direction: 'received', attempt: 2, by: 'SPECIALIZED_FLEET' }),
      record({ from: 'SPECIALIZED_FLEET', to: 'ROUTING_DISPATCHER', kind: 'outcome', id: 'r.0-0.0-0.0-0.out', status: 'success', confidence: 0.9, detail: '' }),
      record({ from: 'PROGRESS_MONITOR', to: 'client', kind: 'outcome', id: 'r.out', status: 'failed', confidence: 0, detail: 'format_mismatch' }),
    ]);
    expect(text.split('\n')).toEqual([
      'TIME                      FROM        TO          KIND        DIRECTION  ID                 STATUS   CONFIDENCE  DETAIL',
      '2026-01-01T00:00:00.000Z  dispatcher  fleet       delegation  sent       r.0-0.0-0.0-0      -        -           execute_code',
      '2026-01-01T00:00:00.000Z  dispatcher  fleet       delegation  received   r.0-0.0-0.0-0      -        -           execute_code, attempt 2',
      '2026-01-01T00:00:00.000Z  fleet       dispatcher  outcome     sent       r.0-0.0-0.0-0.out  success  0.90',
      '2026-01-01T00:00:00.000Z  monitor     client      outcome     sent       r.out              failed   0.00        format_mismatch',
      '',
    ]);
  });
});
