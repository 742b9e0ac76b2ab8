import { describe, expect, it } from 'vitest';
import { buildDelegation, buildOutcome } from './messages.js';
import { checkSignature, signRecord } from './signing.js';
import { parseSigningKey, type SigningConfig } from './signing-keys.js';

const OLD = parseSigningKey('2024:old-secret-old-secret-old-secret-0000', 'old');
const NEW = parseSigningKey('2025:new-secret-new-secret-new-secret-1111', 'new');
const signing = (current = NEW, previous: typeof OLD | null = null): SigningConfig => ({ current, previous, maxClockSkewMs: 300_000 });
const NOW = Date.parse('2025-01-15T10:30:05Z');

function delegation(config: SigningConfig | null = signing()) {
  return buildDelegation('ROUTING_DISPATCHER', 'r.0-0.0-0.0-0', 'r.0-0.0-0', { task_type: 'execute_code', objective: 'write it', specialist_hint: 'sim' }, NOW, config);
}

describe('signing and verifying', () => {
  it('signs a message with the current key, and the signature holds through JSON as stored', () => {
    const message = delegation();
    expect(message.signature).toEqual({ key_id: '2025', alg: 'hmac-sha256', value: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown });
    expect(checkSignature(JSON.parse(JSON.stringify(message)), signing())).toEqual({ ok: true, keyId: '2025' });
  });

  it('leaves a message unsigned without a key', () => {
    expect(delegation(null)).not.toHaveProperty('signature');
  });

  it.each<[string, (m: Record<string, unknown> & { payload: Record<string, unknown> }) => void, RegExp]>([
    ['an unsigned message', (m) => delete m.signature, /^unsigned/],
    ['an altered objective', (m) => (m.payload.objective = 'rm -rf /'), /does not match: forged, or altered/],
    ['an added field', (m) => (m.payload.extra = 1), /does not match/],
    ['an altered timestamp', (m) => (m.timestamp = '2025-01-15T10:40:05.000Z'), /does not match/],
    ['a forged MAC', (m) => (m.signature = { key_id: '2025', alg: 'hmac-sha256', value: 'f'.repeat(64) }), /does not match/],
    ['an unknown key', (m) => (m.signature = { key_id: 'stolen', alg: 'hmac-sha256', value: 'f'.repeat(64) }), /unknown key "stolen" \(accepted here: 2025\)/],
    ['another algorithm', (m) => (m.signature = { key_id: '2025', alg: 'none', value: '' }), /algorithm "none"/],
  ])('refuses %s', (_name, mutate, reason) => {
    const message = JSON.parse(JSON.stringify(delegation())) as Record<string, unknown> & { payload: Record<string, unknown> };
    mutate(message);
    const check = checkSignature(message, signing());
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  });

  it('signs the key order away: a re-ordered copy verifies', () => {
    const message = delegation() as unknown as Record<string, unknown>;
    const reordered = Object.fromEntries(Object.entries(message).reverse());
    expect(checkSignature(reordered, signing()).ok).toBe(true);
  });

  it('re-signs in place of an old signature', () => {
    const again = signRecord(delegation(signing(OLD)), signing());
    expect(again.signature?.key_id).toBe('2025');
    expect(checkSignature(again, signing()).ok).toBe(true);
  });

  it('signs outcomes the same way', () => {
    const outcome = signRecord(buildOutcome('SPECIALIZED_FLEET', 'r.0-0.0-0.0-0', { status: 'success', summary: 's', confidence: 0.92 }, 12, NOW), signing());
    expect(checkSignature(JSON.parse(JSON.stringify(outcome)), signing()).ok).toBe(true);
  });
});

describe('key rotation', () => {
  it('accepts both keys while rotating, signs with the new one only', () => {
    const rotating = signing(NEW, OLD);
    expect(checkSignature(delegation(signing(OLD)), rotating)).toEqual({ ok: true, keyId: '2024' });
    expect(checkSignature(delegation(rotating), rotating)).toEqual({ ok: true, keyId: '2025' });
    expect(delegation(rotating).signature?.key_id).toBe('2025');
  });

  it('refuses the old key once it is no longer configured', () => {
    const check = checkSignature(delegation(signing(OLD)), signing());
    expect(check).toEqual({ ok: false, reason: 'signed with unknown key "2024" (accepted here: 2025)' });
  });
});
