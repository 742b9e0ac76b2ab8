import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { preview, readStoredRecord, readStoredValue } from './stored-record.js';
import { signRecord } from '../security/signing.js';
import { memoryKeySet } from '../testing/keys.js';

const keys = memoryKeySet();
const recordSchema = z.looseObject({ kind: z.literal('mark'), id: z.string(), tries: z.int().default(0) });
const what = 'a mark';

describe('readStoredRecord', () => {
  it('reads a record of the schema, defaults filled in, with the fast parser or zod’s alike', () => {
    const text = JSON.stringify({ kind: 'mark', id: 'j-1' });
    expect(readStoredRecord(text, recordSchema, { what })).toEqual({ ok: true, value: { kind: 'mark', id: 'j-1', tries: 0 } });
    expect(readStoredRecord(text, recordSchema, { what, fast: true })).toEqual({ ok: true, value: { kind: 'mark', id: 'j-1', tries: 0 } });
  });

  it('says why it refuses: not JSON, or the first issue and where, with the start of the text', () => {
    expect(readStoredRecord('{"kind":', recordSchema, { what })).toEqual({ ok: false, reason: 'not JSON: "{\\"kind\\":"' });
    expect(readStoredRecord('{"kind":"mark","id":7}', recordSchema, { what, fast: true })).toMatchObject({ ok: false, reason: /^not a mark: id: .*string.* in "\{\\"kind/ });
    expect(readStoredRecord('[]', recordSchema, { what })).toMatchObject({ ok: false, reason: /^not a mark: \(the record\): / });
    expect(readStoredValue(null, recordSchema, { what })).toMatchObject({ ok: false, reason: /^not a mark: \(the record\): [^"]*$/ });
  });

  it('refuses a record its check refuses, with the check’s reason', () => {
    const check = (record: { id: string }) => (record.id === 'j-1' ? null : `it is for ${record.id}, not j-1`);
    expect(readStoredRecord(JSON.stringify({ kind: 'mark', id: 'j-1' }), recordSchema, { what, check }).ok).toBe(true);
    expect(readStoredRecord(JSON.stringify({ kind: 'mark', id: 'j-2' }), recordSchema, { what, check })).toEqual({ ok: false, reason: 'it is for j-2, not j-1' });
  });

  it('takes a value `accept` passes as it is, and parses the rest', () => {
    const accept = (value: unknown): value is z.output<typeof recordSchema> => typeof value === 'object' && value !== null && 'tries' in value;
    expect(readStoredRecord('{"tries":3}', recordSchema, { what, accept })).toEqual({ ok: true, value: { tries: 3 } });
    expect(readStoredRecord('{"kind":"mark","id":"j-1"}', recordSchema, { what, accept })).toEqual({ ok: true, value: { kind: 'mark', id: 'j-1', tries: 0 } });
  });

  it('checks the signature over the record as stored, before defaults, when the deployment signs', () => {
    const signedBy = { signing: keys.signing, writer: 'dispatcher' } as const;
    const signed = JSON.stringify(signRecord({ kind: 'mark', id: 'j-1' }, keys.signer('dispatcher')));
    expect(readStoredRecord(signed, recordSchema, { what, signedBy })).toMatchObject({ ok: true, value: { id: 'j-1', tries: 0 } });
    expect(readStoredRecord(JSON.stringify({ kind: 'mark', id: 'j-1' }), recordSchema, { what, signedBy })).toMatchObject({ ok: false, reason: /^unsigned/ });
    const byFleet = JSON.stringify(signRecord({ kind: 'mark', id: 'j-1' }, keys.signer('fleet')));
    expect(readStoredRecord(byFleet, recordSchema, { what, signedBy })).toMatchObject({ ok: false, reason: /only dispatcher may sign this/ });
    expect(readStoredRecord(JSON.stringify({ kind: 'mark', id: 'j-1' }), recordSchema, { what, signedBy: { signing: null, writer: 'dispatcher' } }).ok).toBe(true);
  });

  it('never throws, whatever the text', () => {
    for (const text of ['', 'null', '"x"', '1e999', '{"__proto__":{"kind":"mark"}}', '[[[[]]]]']) {
      expect(readStoredRecord(text, recordSchema, { what, fast: true }).ok).toBe(false);
    }
  });
});

describe('preview', () => {
  it('shows the start of a text, quoted', () => {
    expect(preview('abc')).toBe('"abc"');
    expect(preview('x'.repeat(100), 4)).toBe('"xxxx…"');
  });
});
