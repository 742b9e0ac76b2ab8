import { describe, expect, it } from 'vitest';
import { agentIdentityOf, promptHashOf } from './agent-identity.js';
import { SpecialistRegistry } from './registry.js';
import { defineSpecialist } from './specialist.js';

const run = () => Promise.resolve({ summary: 'ok', confidence: 1 });

describe('agent identity', () => {
  it('hashes the config canonically: key order does not matter, any value does', () => {
    const hash = promptHashOf({ prompt: 'You write Python.', model: { name: 'm', temperature: 0.2 } });
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(promptHashOf({ model: { temperature: 0.2, name: 'm' }, prompt: 'You write Python.' })).toBe(hash);
    expect(promptHashOf({ prompt: 'You write Python!', model: { name: 'm', temperature: 0.2 } })).not.toBe(hash);
    expect(promptHashOf(undefined)).toBe(promptHashOf({}));
  });

  it('is the name, the version and the hash of the config, or the given prompt hash', () => {
    const config = { prompt: 'p' };
    expect(agentIdentityOf(defineSpecialist({ name: 'a', version: '2.1.0', config, run }))).toEqual({ agent_id: 'a', agent_version: '2.1.0', prompt_hash: promptHashOf(config) });
    const pinned = 'ab'.repeat(32);
    expect(agentIdentityOf(defineSpecialist({ name: 'a', version: '1', config, promptHash: pinned, run })).prompt_hash).toBe(pinned);
  });

  it('refuses a malformed prompt hash or config', () => {
    expect(() => defineSpecialist({ name: 'a', version: '1', promptHash: 'abc', run })).toThrow(/promptHash must be a SHA-256 hash/);
    expect(() => defineSpecialist({ name: 'a', version: '1', config: [] as unknown as Record<string, unknown>, run })).toThrow(/config must be a JSON object/);
  });

  it('is what the registry declares for each specialist', () => {
    const registry = new SpecialistRegistry([defineSpecialist({ name: 'b', version: '1', run }), defineSpecialist({ name: 'a', version: '1', config: { x: 1 }, run })]);
    expect(registry.identities().map((identity) => identity.agent_id)).toEqual(['a', 'b']);
    expect(registry.identity('a')?.prompt_hash).toBe(promptHashOf({ x: 1 }));
    expect(registry.identity('nope')).toBeUndefined();
  });
});
