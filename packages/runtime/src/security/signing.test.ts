import { describe, expect, it } from 'vitest';
import { buildDelegation, buildOutcome } from '../messages/messages.js';
import { checkSignature, signRecord } from './signing.js';
import type { Signer } from './signing-keys.js';
import { memoryKeySet } from '../testing/keys.js';

const NOW = Date.parse('2025-01-15T10:30:05Z');
const keys = memoryKeySet();
const dispatcher = keys.signer('dispatcher');

function delegation(signer: Signer | null = dispatcher) {
  return buildDelegation('ROUTING_DISPATCHER', 'r.0-0.0-0.0-0', 'r.0-0.0-0', { task_type: 'execute_code', objective: 'write it', specialist_hint: 'sim' }, NOW, signer);
}

type Mutable = Record<string, unknown> & { payload: Record<string, unknown>; signature: Record<string, unknown> };
const stored = (value: unknown) => JSON.parse(JSON.stringify(value)) as Mutable;

describe('signing and verifying', () => {
  it("signs a message with its sender's key, and the signature holds through JSON as stored", () => {
    const message = delegation();
    expect(message.signature).toEqual({ key_id: dispatcher.keyId, alg: 'ed25519', value: expect.stringMatching(/^[A-Za-z0-9_-]{86}$/) as unknown });
    expect(dispatcher.keyId).toMatch(/^dispatcher-[0-9a-f]{12}$/);
    expect(checkSignature(stored(message), keys.signing, 'dispatcher')).toEqual({ ok: true, keyId: dispatcher.keyId, party: 'dispatcher' });
  });

  it('leaves a message unsigned without a signer', () => {
    expect(delegation(null)).not.toHaveProperty('signature');
  });

  it.each<[string, (m: Mutable) => void, RegExp]>([
    ['an unsigned message', (m) => delete (m as Record<string, unknown>).signature, /^unsigned/],
    ['an altered objective', (m) => (m.payload.objective = 'rm -rf /'), /does not match: forged, or altered/],
    ['an added field', (m) => (m.payload.extra = 1), /does not match/],
    ['an altered timestamp', (m) => (m.timestamp = '2025-01-15T10:40:05.000Z'), /does not match/],
    ['a forged signature', (m) => (m.signature.value = 'A'.repeat(86)), /does not match/],
    ['an unknown key', (m) => (m.signature.key_id = 'stolen'), /unknown key "stolen"/],
    ['another algorithm', (m) => (m.signature.alg = 'hmac-sha256'), /algorithm "hmac-sha256" is not ed25519/],
  ])('refuses %s', (_name, mutate, reason) => {
    const message = stored(delegation());
    mutate(message);
    const check = checkSignature(message, keys.signing, 'dispatcher');
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  });

  it('refuses a valid signature by another party: the Fleet cannot speak for the Dispatcher', () => {
    const posing = signRecord(delegation(null), keys.signer('fleet'));
    expect(checkSignature(stored(posing), keys.signing, 'dispatcher')).toEqual({
      ok: false,
      reason: `signed by fleet (key "${keys.signer('fleet').keyId}"), but only dispatcher may sign this`,
    });
    expect(checkSignature(stored(posing), keys.signing, ['client', 'fleet']).ok).toBe(true);
  });

  it('signs the key order away: a re-ordered copy verifies', () => {
    const message = delegation() as unknown as Record<string, unknown>;
    const reordered = Object.fromEntries(Object.entries(message).reverse());
    expect(checkSignature(reordered, keys.signing, 'dispatcher').ok).toBe(true);
  });

  it('re-signs in place of an old signature', () => {
    const again = signRecord(delegation(keys.signer('client')), dispatcher);
    expect(again.signature?.key_id).toBe(dispatcher.keyId);
    expect(checkSignature(again, keys.signing, 'dispatcher').ok).toBe(true);
  });

  it('signs outcomes the same way', () => {
    const outcome = signRecord(buildOutcome('SPECIALIZED_FLEET', 'r.0-0.0-0.0-0', { status: 'success', summary: 's', confidence: 0.92 }, 12, NOW), keys.signer('fleet'));
    expect(checkSignature(stored(outcome), keys.signing, 'fleet').ok).toBe(true);
  });

  it('never throws on hostile signatures', () => {
    for (const signature of [null, 'x', 1, {}, { key_id: 1 }, { key_id: 'k', alg: 'ed25519', value: '%%%' }, { key_id: 'x'.repeat(10_000), alg: 'ed25519', value: '' }]) {
      expect(checkSignature({ ...delegation(null), signature }, keys.signing, 'dispatcher').ok).toBe(false);
    }
  });
});

describe('key rotation', () => {
  it("accepts a party's earlier key after it rotates, and signs with the new one", () => {
    const rotating = memoryKeySet();
    const before = rotating.signer('dispatcher');
    const signedBefore = delegation(before);
    const after = rotating.rotate('dispatcher');
    expect(after.keyId).not.toBe(before.keyId);
    expect(checkSignature(signedBefore, rotating.signing, 'dispatcher')).toEqual({ ok: true, keyId: before.keyId, party: 'dispatcher' });
    expect(checkSignature(delegation(after), rotating.signing, 'dispatcher')).toEqual({ ok: true, keyId: after.keyId, party: 'dispatcher' });
  });

  it("refuses another deployment's keys", () => {
    const other = memoryKeySet();
    const check = checkSignature(delegation(other.signer('dispatcher')), keys.signing, 'dispatcher');
    expect(check).toMatchObject({ ok: false, reason: /unknown key "dispatcher-[0-9a-f]{12}"/ });
  });
});
