import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature, webhookSignature, webhookSignatureHeader } from './webhook-signature.js';

const SECRET = 'whsec-test';
const BODY = '{"id":"evt_1","type":"done"}';
const T = 1_800_000_000;

describe('webhook signatures', () => {
  it('are HMAC-SHA256 over `t.body`, hex, in `t=…,v1=…`', () => {
    const expected = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(webhookSignature(SECRET, T, BODY)).toBe(expected);
    expect(webhookSignatureHeader(SECRET, T, BODY)).toBe(`t=${T},v1=${expected}`);
  });

  it('verify what was signed, within the window', () => {
    const header = webhookSignatureHeader(SECRET, T, BODY);
    expect(verifyWebhookSignature({ secret: SECRET, header, body: BODY, nowS: T + 299 })).toEqual({ ok: true, timestampS: T });
    expect(verifyWebhookSignature({ secret: SECRET, header, body: BODY, nowS: T - 299 })).toEqual({ ok: true, timestampS: T });
  });

  it('refuse another body, another secret, a moved timestamp', () => {
    const header = webhookSignatureHeader(SECRET, T, BODY);
    expect(verifyWebhookSignature({ secret: SECRET, header, body: `${BODY} `, nowS: T })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyWebhookSignature({ secret: 'other', header, body: BODY, nowS: T })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyWebhookSignature({ secret: SECRET, header: header.replace(`t=${T}`, `t=${T + 1}`), body: BODY, nowS: T })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('refuse a signature outside the replay window, either way', () => {
    const header = webhookSignatureHeader(SECRET, T, BODY);
    expect(verifyWebhookSignature({ secret: SECRET, header, body: BODY, nowS: T + 301 })).toEqual({ ok: false, reason: 'too_old' });
    expect(verifyWebhookSignature({ secret: SECRET, header, body: BODY, nowS: T - 301 })).toEqual({ ok: false, reason: 'in_future' });
    expect(verifyWebhookSignature({ secret: SECRET, header, body: BODY, nowS: T + 60, toleranceS: 30 })).toEqual({ ok: false, reason: 'too_old' });
  });

  it('take any of several v1 values (a secret being rotated)', () => {
    const header = `t=${T},v1=${webhookSignature('old', T, BODY)},v1=${webhookSignature(SECRET, T, BODY)}`;
    expect(verifyWebhookSignature({ secret: SECRET, header, body: BODY, nowS: T }).ok).toBe(true);
  });

  it.each([null, undefined, '', 'v1=abc', `t=${T}`, `t=x,v1=${'0'.repeat(64)}`, `t=${T},t=${T},v1=${'0'.repeat(64)}`, `t=${T},v1=zz`])('call %j malformed, never throwing', (header) => {
    expect(verifyWebhookSignature({ secret: SECRET, header, body: BODY, nowS: T })).toEqual({ ok: false, reason: 'malformed' });
  });
});
