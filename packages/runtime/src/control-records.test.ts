import { describe, expect, it } from 'vitest';
import { checkControlRecord, timeoutRecord } from './control-records.js';
import { signRecord } from './signing.js';
import { parseSigningKey, type SigningConfig } from './signing-keys.js';

const skew = { maxClockSkewMs: 300_000 };
const signing: SigningConfig = { current: parseSigningKey(`k2:${'n'.repeat(40)}`, 'TIERFLOW_SIGNING_KEY'), previous: parseSigningKey(`k1:${'o'.repeat(40)}`, 'TIERFLOW_SIGNING_KEY_PREVIOUS'), ...skew };
const other: SigningConfig = { current: parseSigningKey(`kx:${'x'.repeat(40)}`, 'TIERFLOW_SIGNING_KEY'), previous: null, ...skew };
const mark = (target: string) => ({ version: '1.0', id: `${target}.cancel`, payload: { target_message_id: target, reason: 'stop', cascade: true } });

describe('control records', () => {
  it('count as they are when the deployment does not sign', () => {
    expect(checkControlRecord('1700000000000', 'm-1', null)).toEqual({ ok: true });
  });

  it('verify when signed by the current or the previous key, for the message they name', () => {
    expect(checkControlRecord(timeoutRecord('m-1', 5, signing), 'm-1', signing)).toEqual({ ok: true });
    expect(checkControlRecord(JSON.stringify(signRecord(mark('m-1'), signing)), 'm-1', signing)).toEqual({ ok: true });
    const byPrevious: SigningConfig = { current: signing.previous!, previous: null, ...skew };
    expect(checkControlRecord(JSON.stringify(signRecord(mark('m-1'), byPrevious)), 'm-1', signing)).toEqual({ ok: true });
  });

  it('are ignored when unsigned, forged, altered, or moved to another message', () => {
    expect(checkControlRecord('1700000000000', 'm-1', signing)).toMatchObject({ ok: false, reason: /not signed/ });
    expect(checkControlRecord('{', 'm-1', signing)).toMatchObject({ ok: false, reason: 'not JSON, so not signed' });
    expect(checkControlRecord(JSON.stringify(mark('m-1')), 'm-1', signing)).toMatchObject({ ok: false, reason: /unsigned/ });
    expect(checkControlRecord(timeoutRecord('m-1', 5, other), 'm-1', signing)).toMatchObject({ ok: false, reason: /unknown key/ });
    const altered = { ...(JSON.parse(timeoutRecord('m-1', 5, signing)) as object), at: 6 };
    expect(checkControlRecord(JSON.stringify(altered), 'm-1', signing)).toMatchObject({ ok: false, reason: /does not match/ });
    expect(checkControlRecord(timeoutRecord('m-1', 5, signing), 'm-2', signing)).toMatchObject({ ok: false, reason: 'signed for m-1, not for m-2' });
  });
});
