import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKeySet, privateKeyPath, readKeySetFile, retireKey, rotateKey } from './key-directory.js';
import { PUBLIC_KEYS_FILE } from './key-set.js';
import { buildDelegation } from '../messages/messages.js';
import { runtimeOptionsFromEnv } from '../config/options.js';
import { checkSignature } from './signing.js';
import { DEFAULT_MAX_CLOCK_SKEW_MS, signingFromEnv } from './signing-keys.js';

const dirs: string[] = [];
function keyDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tierflow-keys-'));
  dirs.push(dir);
  return join(dir, 'keys');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const work = { task_type: 'general', objective: 'x' };

describe('a key directory', () => {
  it('holds a key pair per tier and for the client; private keys readable by their owner only', () => {
    const dir = keyDir();
    const keys = generateKeySet(dir);
    expect(keys.map((key) => key.party)).toEqual(['monitor', 'architect', 'dispatcher', 'fleet', 'client']);
    expect(statSync(privateKeyPath(dir, 'fleet')).mode & 0o777).toBe(0o600);
    expect(readFileSync(privateKeyPath(dir, 'fleet'), 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(() => generateKeySet(dir)).toThrow(/already holds a key set/);
  });

  it('rotates: the new key signs, the old one verifies until retired, the current one cannot be retired', () => {
    const dir = keyDir();
    generateKeySet(dir);
    const started = signingFromEnv({ TIERFLOW_KEYS_DIR: dir })!;
    const old = started.keys.signer('fleet');
    const signedBefore = buildDelegation('ROUTING_DISPATCHER', 'm-1', null, work, Date.now(), started.keys.signer('dispatcher'));
    const fresh = rotateKey(dir, 'dispatcher');
    const restarted = signingFromEnv({ TIERFLOW_KEYS_DIR: dir })!;
    expect(restarted.keys.signer('dispatcher').keyId).toBe(fresh.key_id);
    expect(restarted.keys.signer('fleet').keyId).toBe(old.keyId);
    expect(checkSignature(signedBefore, restarted, 'dispatcher').ok).toBe(true);
    // A process started before the rotation learns the new key when it first meets it.
    const signedAfter = buildDelegation('ROUTING_DISPATCHER', 'm-2', null, work, Date.now(), restarted.keys.signer('dispatcher'));
    expect(started.keys.find(fresh.key_id)?.party).toBe('dispatcher');
    expect(checkSignature(signedAfter, started, 'dispatcher').ok).toBe(true);

    expect(() => retireKey(dir, fresh.key_id)).toThrow(/is the current key of dispatcher: rotate it first/);
    const retired = retireKey(dir, signedBefore.signature!.key_id);
    expect(retired.party).toBe('dispatcher');
    expect(checkSignature(signedBefore, signingFromEnv({ TIERFLOW_KEYS_DIR: dir })!, 'dispatcher')).toMatchObject({ ok: false, reason: /unknown key/ });
    expect(readKeySetFile(dir).keys.filter((key) => key.party === 'dispatcher')).toHaveLength(1);
  });

  it('names the damaged key set file the keys command reads, and where it is damaged', () => {
    const dir = keyDir();
    generateKeySet(dir);
    writeFileSync(join(dir, PUBLIC_KEYS_FILE), '{"format":"tierflow-keys/1","keys":[{}]}');
    expect(() => readKeySetFile(dir)).toThrow(/public-keys.json: keys.0.key_id: /);
    writeFileSync(join(dir, PUBLIC_KEYS_FILE), '{"format":');
    expect(() => readKeySetFile(dir)).toThrow(/public-keys.json: not JSON$/);
  });

  it('lets a machine hold only its own private key: it verifies everyone, and cannot sign as another', () => {
    const dir = keyDir();
    generateKeySet(dir);
    for (const party of ['monitor', 'architect', 'dispatcher', 'client'] as const) rmSync(privateKeyPath(dir, party));
    const fleetOnly = signingFromEnv({ TIERFLOW_KEYS_DIR: dir })!;
    expect(fleetOnly.keys.signer('fleet').party).toBe('fleet');
    expect(() => fleetOnly.keys.signer('dispatcher')).toThrow(/holds no private key for dispatcher: it cannot sign as dispatcher/);
  });
});

describe('signing settings from the environment', () => {
  it('is off without TIERFLOW_KEYS_DIR, and reads the clock window', () => {
    expect(signingFromEnv({})).toBeNull();
    expect(runtimeOptionsFromEnv({}).signing).toBeNull();
    const dir = keyDir();
    generateKeySet(dir);
    expect(signingFromEnv({ TIERFLOW_KEYS_DIR: dir })?.maxClockSkewMs).toBe(DEFAULT_MAX_CLOCK_SKEW_MS);
    expect(signingFromEnv({ TIERFLOW_KEYS_DIR: dir, TIERFLOW_MAX_CLOCK_SKEW_MS: '60000' })?.maxClockSkewMs).toBe(60_000);
  });

  it('never shows a private key when options are logged', () => {
    const dir = keyDir();
    generateKeySet(dir);
    const options = runtimeOptionsFromEnv({ TIERFLOW_KEYS_DIR: dir });
    const signer = options.signing!.keys.signer('client');
    expect(JSON.stringify({ options, signer })).not.toContain('PRIVATE');
    expect(JSON.stringify(signer)).toBe(JSON.stringify({ party: 'client', keyId: signer.keyId }));
  });

  it.each<[string, (dir: string) => NodeJS.ProcessEnv, RegExp]>([
    ['the retired shared key', () => ({ TIERFLOW_SIGNING_KEY: 'x'.repeat(40) }), /TIERFLOW_SIGNING_KEY: one shared key no longer signs for everyone; .*tierflow keys generate/],
    ['a directory without a key set', (dir) => ({ TIERFLOW_KEYS_DIR: dir }), /no public-keys.json in .*tierflow keys generate --dir/],
    [
      'a damaged key set',
      (dir) => (generateKeySet(dir), writeFileSync(join(dir, PUBLIC_KEYS_FILE), '{"format":"tierflow-keys/1","keys":[{}]}'), { TIERFLOW_KEYS_DIR: dir }),
      /public-keys.json: keys.0.key_id/,
    ],
    ['a bad window', (dir) => (generateKeySet(dir), { TIERFLOW_KEYS_DIR: dir, TIERFLOW_MAX_CLOCK_SKEW_MS: '-1' }), /TIERFLOW_MAX_CLOCK_SKEW_MS="-1": must be a whole number/],
  ])('refuses %s at start', (_name, env, message) => {
    const dir = keyDir();
    expect(() => signingFromEnv(env(dir))).toThrow(message);
  });

  it("refuses a private key that is not its party's listed key", () => {
    const dir = keyDir();
    generateKeySet(dir);
    writeFileSync(privateKeyPath(dir, 'fleet'), readFileSync(privateKeyPath(dir, 'dispatcher')));
    expect(() => signingFromEnv({ TIERFLOW_KEYS_DIR: dir })!.keys.signer('fleet')).toThrow(/the private key of fleet \(fleet-[0-9a-f]{12}\) is not in the public set/);
  });
});
