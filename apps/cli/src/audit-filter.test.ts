import type { AuditRecord } from '@tierflow/runtime/admin';
import { describe, expect, it } from 'vitest';
import { auditKindsOf, shownAudit } from './audit-filter.js';
import type { CliIo } from './io.js';
import { main } from './main.js';

function record(kind: AuditRecord['kind'], id: string): AuditRecord {
  const base = { time: '2026-11-28T10:00:00.000Z', from: 'ROUTING_DISPATCHER', to: 'SPECIALIZED_FLEET', direction: 'sent' as const, correlation_id: '' };
  return { ...base, kind, id, status: '', confidence: null, by: 'ROUTING_DISPATCHER', attempt: null, detail: '', stream_id: `${id}-0` };
}

const TRAIL = [record('delegation', 'd1'), record('progress', 'p1'), record('progress', 'p2'), record('outcome', 'o1'), record('question', 'q1')];
const ids = (records: readonly AuditRecord[]): string[] => records.map((entry) => entry.id);

describe('the audit rows shown', () => {
  it('leave out progress notes unless asked for', () => {
    expect(ids(shownAudit(TRAIL, {}))).toEqual(['d1', 'o1', 'q1']);
    expect(ids(shownAudit(TRAIL, { progress: true }))).toEqual(['d1', 'p1', 'p2', 'o1', 'q1']);
  });

  it('are those of the kinds named, progress among them when named', () => {
    expect(ids(shownAudit(TRAIL, { kinds: ['outcome', 'question'] }))).toEqual(['o1', 'q1']);
    expect(ids(shownAudit(TRAIL, { kinds: ['progress'] }))).toEqual(['p1', 'p2']);
  });

  it('takes kinds given one by one or separated by commas, and refuses an unknown one', () => {
    expect(auditKindsOf('outcome', ['delegation'])).toEqual(['delegation', 'outcome']);
    expect(auditKindsOf('outcome,question', [])).toEqual(['outcome', 'question']);
    expect(() => auditKindsOf('outcomes', [])).toThrow('unknown kind "outcomes"; the kinds are: delegation, outcome, cancellation, progress, question, answer, blocked, unblocked, decision, gap');
  });
});

describe('tierflow audit --kind', () => {
  it('refuses an unknown kind before it reads anything, exit 2', async () => {
    let err = '';
    const io: CliIo = { stdout: () => undefined, stderr: (text) => void (err += text), readStdin: () => Promise.resolve('') };
    expect(await main(['audit', 'r1', '--kind', 'outcomes'], io)).toBe(2);
    expect(err).toContain('unknown kind "outcomes"');
  });
});
