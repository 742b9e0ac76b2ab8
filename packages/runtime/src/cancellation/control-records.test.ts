import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readCancelMark, readTimeoutRecord, timeoutRecord } from './control-records.js';
import { signRecord } from '../security/signing.js';
import { memoryKeySet } from '../testing/keys.js';

const keys = memoryKeySet();
const signing = keys.signing;
const [architect, dispatcher, client] = [keys.signer('architect'), keys.signer('dispatcher'), keys.signer('client')];
const other = memoryKeySet().signer('dispatcher');
const mark = (target: string) => ({
  version: '1.0.0',
  id: `${target}.cancel`,
  timestamp: '2025-01-15T10:30:00Z',
  source_tier: 'PROGRESS_MONITOR',
  target_tier: 'ABSTRACT_ARCHITECT',
  correlation_id: target,
  payload: { target_message_id: target, reason: 'stop', cascade: true },
});

describe('control records', () => {
  it('are read as they are when the deployment does not sign, if they have the right shape and target', () => {
    expect(readCancelMark(JSON.stringify(mark('m-1')), 'm-1', null, 'client')).toMatchObject({ ok: true, value: { payload: { reason: 'stop' } } });
    expect(readTimeoutRecord(timeoutRecord('m-1', 5, null), 'm-1', null, 'dispatcher')).toMatchObject({ ok: true, value: { at: 5 } });
  });

  it('verify when signed by the party whose key space holds them, for the message they name', () => {
    expect(readTimeoutRecord(timeoutRecord('m-1', 5, dispatcher), 'm-1', signing, 'dispatcher').ok).toBe(true);
    expect(readCancelMark(JSON.stringify(signRecord(mark('m-1'), client)), 'm-1', signing, 'client').ok).toBe(true);
    expect(readCancelMark(JSON.stringify(signRecord(mark('m-1'), architect)), 'm-1', signing, 'architect').ok).toBe(true);
  });

  it('are ignored when unsigned, forged, altered, moved to another message, or signed by another party', () => {
    expect(readTimeoutRecord('1700000000000', 'm-1', signing, 'dispatcher')).toMatchObject({ ok: false, reason: /not a timeout record/ });
    expect(readTimeoutRecord('{', 'm-1', signing, 'dispatcher')).toMatchObject({ ok: false, reason: /not JSON/ });
    expect(readCancelMark(JSON.stringify(mark('m-1')), 'm-1', signing, 'client')).toMatchObject({ ok: false, reason: /unsigned/ });
    expect(readTimeoutRecord(timeoutRecord('m-1', 5, other), 'm-1', signing, 'dispatcher')).toMatchObject({ ok: false, reason: /unknown key/ });
    const altered = { ...(JSON.parse(timeoutRecord('m-1', 5, dispatcher)) as object), at: 6 };
    expect(readTimeoutRecord(JSON.stringify(altered), 'm-1', signing, 'dispatcher')).toMatchObject({ ok: false, reason: /does not match/ });
    expect(readTimeoutRecord(timeoutRecord('m-1', 5, dispatcher), 'm-2', signing, 'dispatcher')).toMatchObject({ ok: false, reason: 'it is for m-1, not m-2' });
    expect(readCancelMark(JSON.stringify(signRecord(mark('m-1'), client)), 'm-2', signing, 'client')).toMatchObject({ ok: false, reason: 'it cancels m-1, not m-2' });
    // The Fleet's own key, on a record in the client's key space.
    expect(readCancelMark(JSON.stringify(signRecord(mark('m-1'), keys.signer('fleet'))), 'm-1', signing, 'client')).toMatchObject({
      ok: false,
      reason: /signed by fleet .* only client may sign this/,
    });
    expect(readTimeoutRecord(timeoutRecord('m-1', 5, keys.signer('fleet')), 'm-1', signing, 'dispatcher')).toMatchObject({ ok: false, reason: /only dispatcher may sign/ });
  });

  it('never throw, whatever is stored (fuzzed), with or without signing', () => {
    const stored = fc.oneof(
      fc.string(),
      fc.json(),
      fc.anything().map((value) => JSON.stringify(value) ?? 'undefined'),
    );
    fc.assert(
      fc.property(stored, fc.boolean(), (text, signs) => {
        const config = signs ? signing : null;
        for (const read of [readCancelMark(text, 'm-1', config, 'client'), readTimeoutRecord(text, 'm-1', config, 'dispatcher')]) {
          expect(typeof read.ok).toBe('boolean');
        }
      }),
      { numRuns: 1000 },
    );
  });
});
