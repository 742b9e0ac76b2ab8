import { describe, expect, it } from 'vitest';
import { seedExample } from './test-fixtures.js';
import { validate } from './validate.js';

const signature = { key_id: 'fleet-2025', alg: 'ed25519', value: 'a'.repeat(86) };
const agent = { agent_id: 'python-lora', agent_version: '1.0.0', prompt_hash: 'b'.repeat(64) };

describe('the signature and target_agent fields', () => {
  it('are optional: a message without them is as valid as before', () => {
    const result = validate(seedExample('dispatcher-to-fleet.json'));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value).not.toHaveProperty('signature');
  });

  it('are kept through a parse when present', () => {
    const message = seedExample('dispatcher-to-fleet.json');
    message.signature = signature;
    message.payload.target_agent = agent;
    const result = validate(message);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value).toMatchObject({ signature, payload: { target_agent: agent } });
  });

  it.each<[string, (m: ReturnType<typeof seedExample>) => void, string]>([
    ['another algorithm', (m) => (m.signature = { ...signature, alg: 'none' }), '$.signature.alg'],
    ['a short signature', (m) => (m.signature = { ...signature, value: 'abc' }), '$.signature.value: must be 86 base64url characters'],
    ['the old HMAC algorithm', (m) => (m.signature = { ...signature, alg: 'hmac-sha256' }), '$.signature.alg'],
    ['a key id with a colon', (m) => (m.signature = { ...signature, key_id: 'a:b' }), '$.signature.key_id'],
    ['a prompt hash that is not SHA-256', (m) => (m.payload.target_agent = { ...agent, prompt_hash: 'x' }), '$.payload.target_agent.prompt_hash: must be a SHA-256 hash'],
    ['a target agent without a version', (m) => (m.payload.target_agent = { agent_id: 'a', prompt_hash: 'b'.repeat(64) }), '$.payload.target_agent.agent_version'],
  ])('refuse %s', (_name, mutate, error) => {
    const message = seedExample('dispatcher-to-fleet.json');
    mutate(message);
    const result = validate(message);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => `${e.path}: ${e.message}`).join('\n')).toContain(error);
  });
});
