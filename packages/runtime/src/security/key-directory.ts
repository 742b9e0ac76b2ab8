import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TierflowError } from '@tierflow/protocol';
import { KEY_SET_FORMAT, newKeyPair, parseKeySetFile, PARTIES, PUBLIC_KEYS_FILE, type KeySetFile, type PublicKeyEntry } from './key-set.js';
import type { Party } from './party.js';

/**
 * What `tierflow keys` does to a key directory. Files are replaced whole (written aside, then
 * renamed), so a process reading the directory meanwhile sees the old set or the new, never half.
 */

export function privateKeyPath(dir: string, party: Party): string {
  return join(dir, `${party}.key`);
}

/** A new key set: a key pair for every tier and for the client. Refuses to overwrite one. */
export function generateKeySet(dir: string, now = new Date()): PublicKeyEntry[] {
  if (existsSync(join(dir, PUBLIC_KEYS_FILE))) {
    throw TierflowError.permanent(`${dir} already holds a key set; rotate a party's key with \`tierflow keys rotate <party>\``, { code: 'invalid_config' });
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pairs = PARTIES.map((party) => newKeyPair(party, now));
  for (const pair of pairs) writeAtomically(privateKeyPath(dir, pair.entry.party), pair.privatePem, 0o600);
  writeKeySetFile(dir, { format: KEY_SET_FORMAT, keys: pairs.map((pair) => pair.entry) });
  return pairs.map((pair) => pair.entry);
}

/**
 * Gives `party` a new current key. Its earlier keys stay in the public set, so what it signed
 * before still verifies, until retired ({@link retireKey}). The private key file is replaced:
 * processes started from now sign with the new key; running ones keep theirs until restarted.
 */
export function rotateKey(dir: string, party: Party, now = new Date()): PublicKeyEntry {
  const set = readKeySetFile(dir);
  const pair = newKeyPair(party, now);
  writeAtomically(privateKeyPath(dir, party), pair.privatePem, 0o600);
  // Each party's current key comes first among its own.
  writeKeySetFile(dir, { ...set, keys: [pair.entry, ...set.keys] });
  return pair.entry;
}

/** Stops accepting a rotated-out key. A party's current key cannot be retired. */
export function retireKey(dir: string, keyId: string): PublicKeyEntry {
  const set = readKeySetFile(dir);
  const entry = set.keys.find((candidate) => candidate.key_id === keyId);
  if (!entry) throw TierflowError.permanent(`no key ${keyId} in ${join(dir, PUBLIC_KEYS_FILE)}`, { code: 'invalid_config' });
  if (currentKeys(set).get(entry.party) === entry) {
    throw TierflowError.permanent(`${keyId} is the current key of ${entry.party}: rotate it first`, { code: 'invalid_config' });
  }
  writeKeySetFile(dir, { ...set, keys: set.keys.filter((candidate) => candidate !== entry) });
  return entry;
}

/** Each party's current key: its first entry. */
export function currentKeys(set: KeySetFile): Map<Party, PublicKeyEntry> {
  const current = new Map<Party, PublicKeyEntry>();
  for (const entry of set.keys) if (!current.has(entry.party)) current.set(entry.party, entry);
  return current;
}

export function readKeySetFile(dir: string): KeySetFile {
  const path = join(dir, PUBLIC_KEYS_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw TierflowError.permanent(`no key set at ${path}; create one with \`tierflow keys generate --dir ${dir}\``, { code: 'invalid_config' });
  }
  return parseKeySetFile(text, path);
}

function writeKeySetFile(dir: string, set: KeySetFile): void {
  writeAtomically(join(dir, PUBLIC_KEYS_FILE), `${JSON.stringify(set, null, 2)}\n`, 0o644);
}

function writeAtomically(path: string, text: string, mode: number): void {
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, text, { mode });
  chmodSync(aside, mode);
  renameSync(aside, path);
}
