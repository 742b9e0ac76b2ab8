import { describe, expect, it } from 'vitest';
import { attestationFor, attestationSchema, checkAttestation, compositionProblems, type AttestationContext, type AttestedEnvelope } from './attestation.js';
import { delegationMessageSchema, outcomeMessageSchema } from './message.js';

const PIN = { agent_id: 'python-lora', agent_version: '1.2.0', prompt_hash: 'a'.repeat(64) };
const ROOT = 'root-1';
const delegation: AttestedEnvelope = {
  id: `${ROOT}.0-0.0-0.0-0`,
  timestamp: '2026-11-29T10:00:00.000Z',
  source_tier: 'ROUTING_DISPATCHER',
  target_tier: 'SPECIALIZED_FLEET',
  payload: { task_type: 'code', objective: 'write it', target_agent: PIN, task_data: { composition: { 'python-lora': 60, 'sql-lora': 40 } } },
};
const outcome: AttestedEnvelope = {
  id: `${ROOT}.0-0.0-0.0-0.out`,
  timestamp: '2026-11-29T10:00:05.000Z',
  source_tier: 'SPECIALIZED_FLEET',
  target_tier: 'ROUTING_DISPATCHER',
  payload: { status: 'success', summary: 'done', confidence: 0.9, execution_time_ms: 5 },
};
const SIGNATURE = { key_id: 'dispatcher-1', alg: 'ed25519', value: 'x'.repeat(86) };
const receiving: AttestationContext = { rootId: ROOT, require: false, boundaries: 'allowed' };

function attested(message: AttestedEnvelope, signed = false): AttestedEnvelope {
  const attestation = attestationFor(message, { rootId: ROOT, signed, boundaries: 'checked', answering: message === outcome ? (delegation.payload as { task_data: unknown }) : null });
  return { ...message, ...(signed ? { signature: SIGNATURE } : {}), attestation };
}

describe('attestationFor', () => {
  it('attests a pinned, composed, bounded delegation', () => {
    const attestation = attestationFor(delegation, { rootId: ROOT, signed: true, agent: { ...PIN, agent_id: 'dispatcher' }, boundaries: 'checked' });
    expect(attestation).toEqual({
      source: { tier: 'ROUTING_DISPATCHER', agent: { ...PIN, agent_id: 'dispatcher' }, verified_by: 'signature' },
      target: { tier: 'SPECIALIZED_FLEET', agent: PIN, verified_by: 'pin' },
      boundaries: 'checked',
      composition: 'valid',
      audit_ref: `${ROOT}/${delegation.id}`,
      issued_at: delegation.timestamp,
    });
    expect(attestationSchema.parse(attestation)).toEqual(attestation);
  });

  it('attests an outcome: no pin, the composition of the delegation it answers', () => {
    expect(attestationFor(outcome, { rootId: ROOT, signed: false, boundaries: 'unbounded' })).toMatchObject({
      source: { tier: 'SPECIALIZED_FLEET', verified_by: 'none' },
      target: { tier: 'ROUTING_DISPATCHER', verified_by: 'none' },
      composition: 'not_declared',
    });
    expect(attestationFor(outcome, { rootId: ROOT, signed: false, boundaries: 'unbounded', answering: { task_data: { composition: { sim: 100 } } } }).composition).toBe('valid');
  });

  it('puts an optional field on the envelope, which older messages leave out', () => {
    const wire = { version: '1.0.0', correlation_id: null, ...attested(delegation) };
    expect(delegationMessageSchema.parse(wire).attestation?.audit_ref).toBe(`${ROOT}/${delegation.id}`);
    expect(outcomeMessageSchema.parse({ version: '1.0.0', correlation_id: delegation.id, ...outcome }).attestation).toBeUndefined();
    expect(delegationMessageSchema.safeParse({ ...wire, attestation: { ...(wire.attestation as object), boundaries: 'maybe' } }).success).toBe(false);
  });
});

describe('checkAttestation', () => {
  const good = attested(delegation, true);
  const claims = good.attestation as Record<string, unknown> & { source: object; target: object };
  const forged = (change: Record<string, unknown>): AttestedEnvelope => ({ ...good, attestation: { ...claims, ...change } });

  it.each<[string, AttestedEnvelope, Partial<AttestationContext>, string | null]>([
    ['a genuine delegation', good, {}, null],
    ['a genuine outcome', attested(outcome), { answering: delegation.payload as { task_data: unknown } }, null],
    ['none, when none is required', delegation, {}, null],
    ['none, when one is required', delegation, { require: true }, 'attestation_missing'],
    ['not an attestation', { ...delegation, attestation: { audit_ref: 7 } }, {}, 'attestation_invalid'],
    ['another sender', forged({ source: { ...claims.source, tier: 'ABSTRACT_ARCHITECT' } }), {}, 'attestation_invalid'],
    ['another receiver', forged({ target: { ...claims.target, tier: 'ROUTING_DISPATCHER' } }), {}, 'attestation_invalid'],
    ['an audit_ref naming another message', forged({ audit_ref: `${ROOT}/${ROOT}.0-0` }), {}, 'attestation_invalid'],
    ['an audit_ref naming another run', forged({ audit_ref: `root-2/${delegation.id}` }), {}, 'attestation_invalid'],
    ['issued at another time', forged({ issued_at: '2026-11-29T09:00:00Z' }), {}, 'attestation_invalid'],
    ['a signature claimed on an unsigned message', { ...good, signature: undefined }, {}, 'attestation_invalid'],
    ['another target agent', forged({ target: { ...claims.target, agent: { ...PIN, prompt_hash: 'b'.repeat(64) } } }), {}, 'attestation_invalid'],
    ['a pin claimed where none is', forged({ target: { tier: 'SPECIALIZED_FLEET', agent: PIN, verified_by: 'none' } }), {}, 'attestation_invalid'],
    ['boundaries claimed for a hop they forbid', good, { boundaries: 'forbidden' }, 'attestation_invalid'],
    ['unbounded claimed for a bounded hop', forged({ boundaries: 'unbounded' }), {}, 'attestation_invalid'],
    ['checked claimed where nothing bounds it', good, { boundaries: 'unbounded' }, null],
    ['no composition claimed for a declared one', forged({ composition: 'not_declared' }), {}, 'attestation_invalid'],
    ['a composition claimed where none is declared', attested({ ...delegation, payload: { task_type: 'code', objective: 'x' } }), {}, null],
    [
      'a composition that does not sum to 100',
      { ...good, payload: { ...(delegation.payload as object), task_data: { composition: { 'python-lora': 60, 'sql-lora': 30 } } } },
      {},
      'attestation_invalid',
    ],
  ])('%s', (_name, message, context, expected) => {
    const refusal = checkAttestation(message, { ...receiving, ...context });
    expect(refusal?.error_type ?? null).toBe(expected);
    if (refusal) expect(refusal.detail).toContain(message.id);
  });

  it('says which claim does not hold', () => {
    expect(checkAttestation(forged({ audit_ref: `${ROOT}/${ROOT}.0-0` }), receiving)?.detail).toMatch(/audit_ref root-1\/root-1\.0-0 names another entry than root-1\/root-1\.0-0\.0-0\.0-0/);
  });
});

describe('compositionProblems', () => {
  it.each<[string, unknown, string[] | null, string[]]>([
    ['shares summing to 100', { 'python-lora': 60, 'sql-lora': 40 }, null, []],
    ['within the tolerance', { a: 33.333, b: 33.333, c: 33.334 }, null, []],
    ['shares summing to 90', { a: 60, b: 30 }, null, ['the shares sum to 90 %, not 100 %']],
    ['a share of 0', { a: 100, b: 0 }, null, ['b: a share must be above 0 %']],
    ['no domain', {}, null, ['a composition names at least one domain']],
    ['not an object', 'python', null, [expect.stringContaining('expected record') as string]],
    ['a known domain, and sim', { 'python-lora': 50, sim: 50 }, ['python-lora'], []],
    ['an unknown domain', { 'python-lora': 50, 'rust-lora': 50 }, ['python-lora'], ['rust-lora: not a known specialist']],
  ])('%s', (_name, value, known, expected) => {
    expect(compositionProblems(value, known ? new Set(known) : null)).toEqual(expected);
  });
});
