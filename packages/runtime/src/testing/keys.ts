import { newKeyPair, parsePublicKeys, KEY_SET_FORMAT, PARTIES, type PublicKeyEntry } from '../security/key-set.js';
import type { Party } from '../security/party.js';
import { KeyRing, type SigningConfig, type Signer } from '../security/signing-keys.js';

/** A key set held in memory, for tests: every party's key, and rotation. */
export interface MemoryKeySet {
  readonly signing: SigningConfig;
  /** The current signer of `party`. */
  signer(party: Party): Signer;
  /** Gives `party` a new current key; its earlier ones stay accepted. Returns the new signer. */
  rotate(party: Party): Signer;
}

/** A deployment's key set without a directory: one Ed25519 key pair per party. */
export function memoryKeySet(options: { maxClockSkewMs?: number } = {}): MemoryKeySet {
  const entries: PublicKeyEntry[] = [];
  const privates = new Map<Party, string>();
  const add = (party: Party) => {
    const pair = newKeyPair(party, new Date());
    entries.unshift(pair.entry);
    privates.set(party, pair.privatePem);
  };
  for (const party of PARTIES) add(party);
  const source = {
    describe: 'the test key set',
    version: () => String(entries.length),
    publicKeys: () => parsePublicKeys(JSON.stringify({ format: KEY_SET_FORMAT, keys: entries }), 'the test key set'),
    privateKey: (party: Party) => privates.get(party) ?? null,
  };
  const signing: SigningConfig = { keys: new KeyRing(source), maxClockSkewMs: options.maxClockSkewMs ?? 300_000 };
  return {
    signing,
    signer: (party) => signing.keys.signer(party),
    rotate: (party) => {
      add(party);
      // A fresh ring, as a restarted process has: one that is running keeps its signers.
      return new KeyRing(source).signer(party);
    },
  };
}
