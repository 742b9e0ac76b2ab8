import { createHash, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { TierflowError } from '@tierflow/protocol';
import { z } from 'zod';
import type { Party } from './party.js';

/**
 * A deployment's key set, as kept in a directory (TIERFLOW_KEYS_DIR):
 * - `public-keys.json`: every party's public keys, current and rotated out (see {@link keySetFileSchema});
 * - `<party>.key`: that party's current private key (PKCS#8 PEM, mode 0600).
 * A machine needs `public-keys.json` and the private key of the party it runs as, nothing else.
 */
export const PUBLIC_KEYS_FILE = 'public-keys.json';
export const KEY_SET_FORMAT = 'tierflow-keys/1';
export const PARTIES = ['monitor', 'architect', 'dispatcher', 'fleet', 'client'] as const satisfies readonly Party[];

const partySchema = z.enum(PARTIES);

export const publicKeyEntrySchema = z.object({
  key_id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
  party: partySchema,
  /** The public key, SPKI DER in base64. */
  public_key: z.string().min(1),
  created_at: z.string(),
});
export type PublicKeyEntry = z.infer<typeof publicKeyEntrySchema>;

export const keySetFileSchema = z.object({
  format: z.literal(KEY_SET_FORMAT),
  /** For each party, its current key first, then the ones rotated out but still accepted. */
  keys: z.array(publicKeyEntrySchema),
});
export type KeySetFile = z.infer<typeof keySetFileSchema>;

/** A public key ready to verify with, and whose it is. */
export interface PublicKey {
  readonly keyId: string;
  readonly party: Party;
  readonly key: KeyObject;
}

/** `<party>-<12 hex digits of SHA-256 over the public key>`: names its holder, and differs per key. */
export function keyIdOf(party: Party, spkiDer: Buffer): string {
  return `${party}-${createHash('sha256').update(spkiDer).digest('hex').slice(0, 12)}`;
}

/** A fresh Ed25519 key pair for `party`: its public entry and its private key as PEM. */
export function newKeyPair(party: Party, now: Date): { entry: PublicKeyEntry; privatePem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return {
    entry: { key_id: keyIdOf(party, der), party, public_key: der.toString('base64'), created_at: now.toISOString() },
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

/**
 * The public keys of a key set file's text.
 *
 * @throws TierflowError (permanent, `invalid_config`) naming `source` and what is wrong.
 */
export function parsePublicKeys(text: string, source: string): PublicKey[] {
  const seen = new Set<string>();
  return parseKeySetFile(text, source).keys.map((entry) => {
    if (seen.has(entry.key_id)) throw invalidKeys(source, `key ${entry.key_id} is listed twice`);
    seen.add(entry.key_id);
    let key: KeyObject;
    try {
      key = createPublicKey({ key: Buffer.from(entry.public_key, 'base64'), format: 'der', type: 'spki' });
    } catch {
      throw invalidKeys(source, `key ${entry.key_id} is not a public key`);
    }
    if (key.asymmetricKeyType !== 'ed25519') throw invalidKeys(source, `key ${entry.key_id} is ${key.asymmetricKeyType ?? 'of no known type'}, not ed25519`);
    return { keyId: entry.key_id, party: entry.party, key };
  });
}

/**
 * A key set file's text, read. (Not through the runtime's reader of stored records: that one
 * checks signatures, whose keys come from here.)
 *
 * @throws TierflowError (permanent, `invalid_config`) naming `source` and what is wrong.
 */
export function parseKeySetFile(text: string, source: string): KeySetFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidKeys(source, 'not JSON');
  }
  const parsed = keySetFileSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw invalidKeys(source, issue ? `${issue.path.join('.') || '(the file)'}: ${issue.message}` : 'invalid');
}

function invalidKeys(source: string, why: string): TierflowError {
  return TierflowError.permanent(`${source}: ${why}`, { code: 'invalid_config' });
}
