import type { ChainableCommander } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { appendAudit, parseAuditFields, type AuditEntry } from './audit-entry.js';
import { FencedBatch } from '../redis/fenced-batch.js';
import { auditKey } from '../redis/keys.js';

const entry: AuditEntry = {
  time: '2026-01-01T00:00:00.000Z',
  from: 'ROUTING_DISPATCHER',
  to: 'SPECIALIZED_FLEET',
  kind: 'delegation',
  direction: 'received',
  id: 'r.0-0.0-0.0-0',
  correlation_id: 'r.0-0.0-0',
  status: '',
  confidence: null,
  by: 'SPECIALIZED_FLEET',
  attempt: 2,
  detail: 'execute_code',
};

/** The stream fields an entry is written under. */
const auditFields = (written: AuditEntry): string[] => ['e', JSON.stringify(written)];

/** A pipeline that records what is queued on it. */
function recorder(): { pipeline: ChainableCommander; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const pipeline = { eval: (...args: unknown[]) => calls.push(['eval', ...args]) } as unknown as ChainableCommander;
  return { pipeline, calls };
}

describe('audit entries', () => {
  it('are written as one JSON field, and read back whole', () => {
    const fields = auditFields(entry);
    expect(fields).toEqual(['e', JSON.stringify(entry)]);
    expect(parseAuditFields('1-0', fields)).toEqual({ ...entry, stream_id: '1-0' });
    expect(parseAuditFields('2-0', auditFields({ ...entry, kind: 'outcome', status: 'success', confidence: 0.92, attempt: null }))).toMatchObject({ confidence: 0.92, attempt: null });
  });

  it("keep a decision's record, and drop one that is not a JSON object", () => {
    const data = { mode: 'learned', chosen: 'b', scores: [{ specialist: 'b', score: 0.8 }] };
    const decision: AuditEntry = { ...entry, kind: 'decision', direction: 'sent', by: 'ROUTING_DISPATCHER', attempt: null, detail: 'learned: chose b (sampled)', data };
    expect(parseAuditFields('3-0', auditFields(decision))).toEqual({ ...decision, stream_id: '3-0' });
    expect(parseAuditFields('4-0', ['e', JSON.stringify({ ...decision, data: ['b'] })])).not.toHaveProperty('data');
    expect(parseAuditFields('5-0', auditFields(entry))).not.toHaveProperty('data');
  });

  it('written a field per value, as before, read back the same', () => {
    const legacy = [
      'time',
      entry.time,
      'from',
      entry.from,
      'to',
      entry.to,
      'kind',
      'delegation',
      'direction',
      'received',
      'id',
      entry.id,
      'correlation_id',
      entry.correlation_id,
      'status',
      '',
      'confidence',
      '',
      'by',
      entry.by,
      'attempt',
      '2',
      'detail',
      entry.detail,
    ];
    expect(parseAuditFields('1-0', legacy)).toEqual({ ...entry, stream_id: '1-0' });
  });

  it('read back leave unknown fields out, missing ones empty, and a number that is not one NaN', () => {
    expect(parseAuditFields('3-0', ['id', 'x', 'future', 'y'])).toMatchObject({ id: 'x', from: '', confidence: null, attempt: null });
    expect(parseAuditFields('3-1', ['id', 'x', 'confidence', 'lots'])).toMatchObject({ confidence: Number.NaN });
    expect(parseAuditFields('4-0', ['e', '{"id":"x","confidence":"high","attempt":1e999,"future":1,"from":7}'])).toMatchObject({ id: 'x', from: '', confidence: Number.NaN, attempt: Infinity });
    for (const junk of ['not json', '[1,2]', 'null', '"text"']) expect(parseAuditFields('5-0', ['e', junk])).toMatchObject({ id: '', kind: '', confidence: null });
  });

  it('live in one stream per run, under the deployment prefix', () => {
    expect(auditKey('{tierflow}', 'r')).toBe('{tierflow}:audit:r');
  });
});

describe('appendAudit', () => {
  it('on a MULTI or pipeline: one script call for the entries, with the TTL and its mode', () => {
    const { pipeline, calls } = recorder();
    appendAudit(pipeline, 'k', [entry, entry], 1000);
    appendAudit(pipeline, 'k', [entry], null);
    appendAudit(pipeline, 'k', [entry], 1000, true);
    appendAudit(pipeline, 'k', [], 1000);
    expect(calls.map((call) => call.slice(2, 7))).toEqual([
      [1, 'k', '1000', '', ''],
      [1, 'k', '', '', ''],
      [1, 'k', '1000', 'NX', ''],
    ]);
    expect(calls[0]!.slice(7)).toEqual([JSON.stringify(entry), JSON.stringify(entry)]);
  });

  it("in a pass's fenced batch: one chained append per entry, then the TTL", () => {
    const batch = new FencedBatch();
    appendAudit(batch, 'k', [entry, entry], 1000, true);
    const { words } = batch.scriptForm(2, false);
    expect(words.filter((word) => word === 'TIERFLOW.AUDIT_APPEND')).toHaveLength(2);
    expect(words.slice(-4)).toEqual(['PEXPIRE', 'k', '1000', 'NX']);
  });
});
