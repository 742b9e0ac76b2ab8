import { describe, expect, it } from 'vitest';
import { buildDelegation, buildOutcome } from '../messages/messages.js';
import { attestedOutcome, delegationAttestationRefusal, hopVerdict, outcomeAttestationRefusal, type Attesting } from './attestations.js';
import { checkSignature, signRecord } from './signing.js';
import { memoryKeySet } from '../testing/keys.js';

const NOW = Date.parse('2026-11-29T10:00:00Z');
const AGENT = { agent_id: 'dispatcher', agent_version: '1.0.0', prompt_hash: 'c'.repeat(64) };
const bounded: Attesting = { boundaries: { dispatcher: ['fleet:sim'] }, governance: { require: true, agent: AGENT } };
const open: Attesting = { boundaries: null, governance: { require: false, agent: null } };

describe('hopVerdict', () => {
  it.each<[string, Attesting['boundaries'], string | null, ReturnType<typeof hopVerdict>]>([
    ['no boundaries', null, 'sim', 'unbounded'],
    ['a sender no key names', { architect: ['dispatcher'] }, 'sim', 'unbounded'],
    ['an allowed specialist', { dispatcher: ['fleet:sim'] }, 'sim', 'allowed'],
    ['a forbidden one', { dispatcher: ['fleet:sim'] }, 'shell', 'forbidden'],
  ])('%s', (_name, boundaries, specialist, verdict) => {
    expect(hopVerdict(boundaries, { from: 'ROUTING_DISPATCHER', to: 'SPECIALIZED_FLEET', request: { specialist_hint: specialist } })).toBe(verdict);
  });
});

describe('attested messages', () => {
  const delegation = buildDelegation('ROUTING_DISPATCHER', 'root-1.0-0.0-0.0-0', 'root-1.0-0.0-0', { task_type: 'general', objective: 'x', specialist_hint: 'sim' }, NOW, null, bounded);

  it('attests every delegation it builds, with the sender’s identity and its boundaries', () => {
    expect(delegation.attestation).toEqual({
      source: { tier: 'ROUTING_DISPATCHER', agent: AGENT, verified_by: 'none' },
      target: { tier: 'SPECIALIZED_FLEET', verified_by: 'none' },
      boundaries: 'checked',
      composition: 'not_declared',
      audit_ref: 'root-1/root-1.0-0.0-0.0-0',
      issued_at: delegation.timestamp,
    });
    expect(delegationAttestationRefusal(delegation, 'root-1', bounded)).toBeNull();
    expect(buildDelegation('ROUTING_DISPATCHER', 'root-1.0-0.0-0.0-1', null, { task_type: 'general', objective: 'x' }, NOW).attestation?.boundaries).toBe('unbounded');
  });

  it('refuses a delegation whose claims its receiver’s boundaries contradict, and one without under require', () => {
    const elsewhere = buildDelegation('ROUTING_DISPATCHER', 'root-1.0-0.0-0.0-2', null, { task_type: 'general', objective: 'x', specialist_hint: 'shell' }, NOW, null, open);
    expect(delegationAttestationRefusal(elsewhere, 'root-1', bounded)?.error_type).toBe('attestation_invalid');
    const { attestation: _dropped, ...bare } = delegation;
    expect(delegationAttestationRefusal(bare, 'root-1', bounded)?.error_type).toBe('attestation_missing');
    expect(delegationAttestationRefusal(bare, 'root-1', open)).toBeNull();
  });

  it('signs over the attestation: a signed one claims the signature, and altering it breaks the signature', () => {
    const keys = memoryKeySet();
    const signed = buildDelegation('ROUTING_DISPATCHER', 'root-1.0-0.0-0.0-3', null, { task_type: 'general', objective: 'x' }, NOW, keys.signer('dispatcher'), open);
    expect(signed.attestation?.source.verified_by).toBe('signature');
    expect(delegationAttestationRefusal(signed, 'root-1', open)).toBeNull();
    expect(checkSignature(signed, keys.signing, 'dispatcher').ok).toBe(true);
    const altered = { ...signed, attestation: { ...signed.attestation!, boundaries: 'checked' } };
    expect(checkSignature(altered, keys.signing, 'dispatcher')).toMatchObject({ ok: false, reason: expect.stringMatching(/does not match/) as unknown });
  });

  it('attests an outcome for the hop of the delegation it answers; the parent checks it against what it sent', () => {
    const built = buildOutcome('SPECIALIZED_FLEET', delegation.id, { status: 'success', summary: 'done', confidence: 0.9 }, 5, NOW);
    const outcome = attestedOutcome(built, 'root-1', delegation.payload, false, bounded);
    expect(outcome.attestation).toMatchObject({ source: { tier: 'SPECIALIZED_FLEET' }, target: { tier: 'ROUTING_DISPATCHER' }, boundaries: 'checked', audit_ref: `root-1/${outcome.id}` });
    expect(outcomeAttestationRefusal(outcome, 'root-1', delegation.payload, bounded)).toBeNull();
    expect(outcomeAttestationRefusal({ ...outcome, attestation: { ...outcome.attestation!, audit_ref: 'root-2/x' } }, 'root-1', delegation.payload, bounded)?.error_type).toBe('attestation_invalid');
    expect(outcomeAttestationRefusal(built, 'root-1', delegation.payload, bounded)?.error_type).toBe('attestation_missing');
    expect(signRecord(outcome, null)).toBe(outcome);
  });
});
