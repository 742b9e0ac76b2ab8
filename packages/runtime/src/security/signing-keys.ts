import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TierflowError } from '@tierflow/protocol';
import { readTierflowEnv } from '../config/tierflow-env.js';
import { privateKeyPath } from './key-directory.js';
import { keyIdOf, parsePublicKeys, PUBLIC_KEYS_FILE, type PublicKey } from './key-set.js';
import type { Party } from './party.js';

/** The key a party signs with. The private key never serialises: a signer logs as its id. */
export class Signer {
  readonly #key: KeyObject;

  constructor(
    readonly party: Party,
    readonly keyId: string,
    key: KeyObject,
  ) {
    this.#key = key;
  }

  get key(): KeyObject {
    return this.#key;
  }

  toJSON(): { party: Party; keyId: string } {
    return { party: this.party, keyId: this.keyId };
  }
}

/** Where public keys come from; a changed set is read again when an unknown key shows up. */
export interface KeySource {
  readonly publicKeys: () => PublicKey[];
  /** Changes whenever the public set may have (a file's inode, size and time); cheap to ask. */
  readonly version: () => string;
  /** The party's private key as PEM, or null when this machine does not hold it. */
  readonly privateKey: (party: Party) => string | null;
  readonly describe: string;
}

/**
 * The public keys a process verifies with, and the private keys it may sign with. A key id that
 * is not known sends it back to the source when the set has changed since it was read (a key
 * rotated in since the process started); forged ids cost a stat, never a read, while it has not.
 */
export class KeyRing {
  private byId = new Map<string, PublicKey>();
  private loaded = '';
  private readonly signers = new Map<Party, Signer>();

  constructor(private readonly source: KeySource) {
    this.load();
  }

  /** The public key of `keyId`, or undefined when neither the ring nor the set as it is now knows it. */
  find(keyId: string): PublicKey | undefined {
    const known = this.byId.get(keyId);
    if (known || this.source.version() === this.loaded) return known;
    try {
      this.load();
    } catch {
      // A damaged set: keep the keys read before, and try again once it changes.
    }
    return this.byId.get(keyId);
  }

  /** Key ids accepted for `party`, for messages saying what would have been accepted. */
  idsOf(party: Party): string[] {
    return [...this.byId.values()].filter((key) => key.party === party).map((key) => key.keyId);
  }

  /**
   * The signer for `party`, from its private key.
   *
   * @throws TierflowError (permanent, `invalid_config`) when this machine does not hold the key,
   *   or holds one the public set does not list.
   */
  signer(party: Party): Signer {
    const known = this.signers.get(party);
    if (known) return known;
    const pem = this.source.privateKey(party);
    if (pem === null) throw TierflowError.permanent(`${this.source.describe} holds no private key for ${party}: it cannot sign as ${party}`, { code: 'invalid_config' });
    let key: KeyObject;
    try {
      key = createPrivateKey(pem);
    } catch {
      throw TierflowError.permanent(`${this.source.describe}: the private key of ${party} is not a PEM private key`, { code: 'invalid_config' });
    }
    if (key.asymmetricKeyType !== 'ed25519') throw TierflowError.permanent(`${this.source.describe}: the private key of ${party} is not an Ed25519 key`, { code: 'invalid_config' });
    const keyId = keyIdOf(party, createPublicKey(key).export({ format: 'der', type: 'spki' }));
    if (this.find(keyId)?.party !== party) {
      throw TierflowError.permanent(`${this.source.describe}: the private key of ${party} (${keyId}) is not in the public set`, { code: 'invalid_config' });
    }
    const signer = new Signer(party, keyId, key);
    this.signers.set(party, signer);
    return signer;
  }

  private load(): void {
    const version = this.source.version();
    this.loaded = version;
    this.byId = new Map(this.source.publicKeys().map((key) => [key.keyId, key]));
  }
}

/** A key ring over a key directory (`tierflow keys generate`). */
export function directoryKeySource(dir: string): KeySource {
  const path = join(dir, PUBLIC_KEYS_FILE);
  return {
    describe: dir,
    version: () => {
      try {
        const stat = statSync(path, { bigint: true });
        return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
      } catch {
        return 'absent';
      }
    },
    publicKeys: () => {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        throw TierflowError.permanent(`TIERFLOW_KEYS_DIR: no ${PUBLIC_KEYS_FILE} in ${dir}; create a key set with \`tierflow keys generate --dir ${dir}\``, { code: 'invalid_config' });
      }
      return parsePublicKeys(text, path);
    },
    privateKey: (party) => {
      try {
        return readFileSync(privateKeyPath(dir, party), 'utf8');
      } catch {
        return null;
      }
    },
  };
}

/** What a deployment that signs needs: the keys, and the clock window. */
export interface SigningConfig {
  readonly keys: KeyRing;
  /** How far a message's timestamp may lie from its job's enqueue time, or ahead of the receiver's clock. */
  readonly maxClockSkewMs: number;
}

export const SIGNING_ENV = {
  keysDir: 'TIERFLOW_KEYS_DIR',
} as const;

/** The shared-secret variables of earlier versions, refused with a pointer to what replaced them. */
const RETIRED_ENV = ['TIERFLOW_SIGNING_KEY', 'TIERFLOW_SIGNING_KEY_PREVIOUS'] as const;

export { DEFAULT_MAX_CLOCK_SKEW_MS } from '../config/runtime-settings.js';

/**
 * Signing settings from TIERFLOW_KEYS_DIR (the key set) and TIERFLOW_MAX_CLOCK_SKEW_MS, both read
 * through the configuration schema; null when no directory is set: then nothing is signed or checked.
 *
 * @throws TierflowError (permanent, code `invalid_config`) for a missing or damaged key set, a bad
 *   variable, or a retired TIERFLOW_SIGNING_KEY.
 */
export function signingFromEnv(env: NodeJS.ProcessEnv): SigningConfig | null {
  const retired = RETIRED_ENV.filter((name) => env[name]);
  if (retired.length > 0) {
    throw TierflowError.permanent(
      `${retired.join(' and ')}: one shared key no longer signs for everyone; each tier and the client now sign with their own Ed25519 key. Create a key set with \`tierflow keys generate --dir <dir>\`, set ${SIGNING_ENV.keysDir}=<dir>, and unset ${retired.join(' and ')}`,
      { code: 'invalid_config' },
    );
  }
  const { TIERFLOW_KEYS_DIR: dir, TIERFLOW_MAX_CLOCK_SKEW_MS: maxClockSkewMs } = readTierflowEnv(env);
  if (!dir) return null;
  return { keys: new KeyRing(directoryKeySource(dir)), maxClockSkewMs };
}

/** The signer of `party` in a deployment that signs; null when it does not. */
export function signerOf(signing: SigningConfig | null | undefined, party: Party): Signer | null {
  return signing ? signing.keys.signer(party) : null;
}
