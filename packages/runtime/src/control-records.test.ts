import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readCancelMark, readTimeoutRecord, timeoutRecord } from './control-records.js';
import { signRecord } from './signing.js';
import { parseSigningKey, type SigningConfig } from './signing-keys.js';

const skew = { maxClockSkewMs: 300_000 };
const signing: SigningConfig = { current: parseSigningKey(`k2:${'n'.repeat(40)}`, 'TIERFLOW_SIGNING_KEY'), previous: parseSigningKey(`k1:${'o'.repeat(40)}`, 'TIERFLOW_SIGNING_KEY_PREVIOUS'), ...skew };
const other: SigningConfig = { current: parseSigningKey(`kx:${'x'.repeat(40)}`, 'TIERFLOW_SIGNING_KEY'), previous: null, ...skew };
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
    expect(readCancelMark(JSON.stringify(mark('m-1')), 'm-1', null)).toMatchObject({ ok: true, value: { payload: { reason: 'stop' } } });
    expect(readTimeoutRecord(timeoutRecord('m-1', 5, null), 'm-1', null)).toMatchObject({ ok: true, value: { at: 5 } });
  });

  it('verify when signed by the current or the previous key, for the message they name', () => {
    expect(readTimeoutRecord(timeoutRecord('m-1', 5, signing), 'm-1', signing).ok).toBe(true);
    expect(readCancelMark(JSON.stringify(signRecord(mark('m-1'), signing)), 'm-1', signing).ok).toBe(true);
    const byPrevious: SigningConfig = { current: signing.previous!, previous: null, ...skew };
    expect(readCancelMark(JSON.stringify(signRecord(mark('m-1'), byPrevious)), 'm-1', signing).ok).toBe(true);
  });

  it('are ignored when unsigned, forged, altered, or moved to another message', () => {
    expect(readTimeoutRecord('1700000000000', 'm-1', signing)).toMatchObject({ ok: false, reason: /not a timeout record/ });
    expect(readTimeoutRecord('{', 'm-1', signing)).toMatchObject({ ok: false, reason: /not JSON/ });
    expect(readCancelMark(JSON.stringify(mark('m-1')), 'm-1', signing)).toMatchObject({ ok: false, reason: /unsigned/ });
    expect(readTimeoutRecord(timeoutRecord('m-1', 5, other), 'm-1', signing)).toMatchObject({ ok: false, reason: /unknown key/ });
    const altered = { ...(JSON.parse(timeoutRecord('m-1', 5, signing)) as object), at: 6 };
    expect(readTimeoutRecord(JSON.stringify(altered), 'm-1', signing)).toMatchObject({ ok: false, reason: /does not match/ });
    expect(readTimeoutRecord(timeoutRecord('m-1', 5, signing), 'm-2', signing)).toMatchObject({ ok: false, reason: 'it is for m-1, not m-2' });
    expect(readCancelMark(JSON.stringify(signRecord(mark('m-1'), signing)), 'm-2', signing)).toMatchObject({ ok: false, reason: 'it cancels m-1, not m-2' });
  });

  it('never throw, whatever is stored (fuzzed), with or without signing', () => {
    const stored = fc.oneof(fc.string(), fc.json(), fc.anything().map((value) => JSON.stringify(value) ?? 'undefined'));
    fc.assert(
      fc.property(stored, fc.boolean(), (text, signs) => {
        const keys = signs ? signing : null;
        for (const read of [readCancelMark(text, 'm-1', keys), readTimeoutRecord(text, 'm-1', keys)]) {
          expect(typeof read.ok).toBe('boolean');
        }
      }),
      { numRuns: 1000 },
    );
  });
});
