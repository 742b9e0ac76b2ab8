import { describe, expect, it } from 'vitest';
import { runtimeOptionsFromEnv } from './options.js';
import { DEFAULT_MAX_CLOCK_SKEW_MS, parseSigningKey, signingFromEnv } from './signing-keys.js';

const SECRET = '0123456789abcdef0123456789abcdef';

describe('signing keys from the environment', () => {
  it('is off without TIERFLOW_SIGNING_KEY', () => {
    expect(signingFromEnv({})).toBeNull();
    expect(runtimeOptionsFromEnv({}).signing).toBeNull();
  });

  it('takes an id:secret, or derives the id from a hash of the secret, the same in every process', () => {
    expect(parseSigningKey(`2025-q1:${SECRET}`, 'X').id).toBe('2025-q1');
    const derived = parseSigningKey(SECRET, 'X').id;
    expect(derived).toMatch(/^k-[0-9a-f]{16}$/);
    expect(parseSigningKey(SECRET, 'X').id).toBe(derived);
    expect(parseSigningKey(`${SECRET}!`, 'X').id).not.toBe(derived);
  });

  it('reads current, previous and the clock window', () => {
    const config = signingFromEnv({ TIERFLOW_SIGNING_KEY: `new:${SECRET}`, TIERFLOW_SIGNING_KEY_PREVIOUS: `old:${SECRET}x`, TIERFLOW_MAX_CLOCK_SKEW_MS: '60000' });
    expect(config).toMatchObject({ current: { id: 'new' }, previous: { id: 'old' }, maxClockSkewMs: 60_000 });
    expect(signingFromEnv({ TIERFLOW_SIGNING_KEY: SECRET })?.maxClockSkewMs).toBe(DEFAULT_MAX_CLOCK_SKEW_MS);
    expect(runtimeOptionsFromEnv({ TIERFLOW_SIGNING_KEY: SECRET }).signing?.current.id).toMatch(/^k-/);
  });

  it('never shows a secret when options are logged', () => {
    const config = signingFromEnv({ TIERFLOW_SIGNING_KEY: `new:${SECRET}` });
    expect(JSON.stringify(config)).not.toContain(SECRET);
    expect(JSON.stringify(config)).toContain('"id":"new"');
  });

  it.each<[string, NodeJS.ProcessEnv, RegExp]>([
    ['a short key', { TIERFLOW_SIGNING_KEY: 'short' }, /TIERFLOW_SIGNING_KEY must be at least 32 characters/],
    ['a previous key alone', { TIERFLOW_SIGNING_KEY_PREVIOUS: SECRET }, /TIERFLOW_SIGNING_KEY_PREVIOUS is set without TIERFLOW_SIGNING_KEY/],
    ['two keys under one id', { TIERFLOW_SIGNING_KEY: `a:${SECRET}`, TIERFLOW_SIGNING_KEY_PREVIOUS: `a:${SECRET}x` }, /different keys with the same id "a"/],
    ['a bad window', { TIERFLOW_SIGNING_KEY: SECRET, TIERFLOW_MAX_CLOCK_SKEW_MS: '-1' }, /TIERFLOW_MAX_CLOCK_SKEW_MS="-1" must be a positive/],
  ])('refuses %s at start', (_name, env, message) => {
    expect(() => signingFromEnv(env)).toThrow(message);
  });
});
