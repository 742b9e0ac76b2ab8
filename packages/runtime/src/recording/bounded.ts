import { createHash } from 'node:crypto';
import type { RecordMode } from '../config/record-mode.js';

/** What a recorded entry may take: each text at most `maxText` bytes, the whole entry at most `maxBytes` of JSON. */
export interface RecordBounds {
  readonly maxText: number;
  readonly maxBytes: number;
}

/** A node's record stays small enough to read in one go: 16 KiB a text, 256 KiB an entry. */
export const DEFAULT_RECORD_BOUNDS: RecordBounds = { maxText: 16 * 1024, maxBytes: 256 * 1024 };

/** A value recorded by its size and hash only (`TIERFLOW_RECORD=metadata`), or because it was too large. */
export interface Digest {
  readonly $digest: { readonly bytes: number; readonly sha256: string };
}

/** Names of fields whose values are never recorded, wherever they are: credentials. */
const SECRET_NAME = /(^|_|-)(api[-_]?key|apikey|authorization|password|passwd|secret|token|access[-_]?key|private[-_]?key|cookie)$/i;
export const REDACTED = '[redacted]';

export function digestOf(value: unknown): Digest {
  const text = JSON.stringify(value) ?? 'null';
  return { $digest: { bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') } };
}

export function isDigest(value: unknown): value is Digest {
  return typeof value === 'object' && value !== null && '$digest' in value;
}

/** A text cut to `maxText` bytes (on a character boundary), with a note of its full size. */
export function cutText(text: string, maxText: number): string {
  // A UTF-8 character takes at most 3 bytes per UTF-16 unit: most texts are known to fit without counting.
  if (text.length * 3 <= maxText) return text;
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxText) return text;
  const head = Buffer.from(text)
    .subarray(0, maxText)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${head}… [cut: ${bytes} bytes in all]`;
}

/**
 * An entry as the JSON text it is recorded as, made in one walk (JSON.stringify's replacer), pure:
 * fields named like credentials redacted, each text over `maxText` bytes cut with a note of its
 * full size. Its `heavy` fields (messages, prompts, answers) are recorded as their digests under
 * `metadata`, and also under `full` when the entry would pass `maxBytes` otherwise.
 */
export function recordText(entry: Readonly<Record<string, unknown>>, heavy: readonly string[], mode: Exclude<RecordMode, 'none'>, bounds: RecordBounds = DEFAULT_RECORD_BOUNDS): string {
  const replacer = (key: string, value: unknown): unknown => {
    if (key !== '' && value !== null && value !== undefined && SECRET_NAME.test(key)) return REDACTED;
    return typeof value === 'string' ? cutText(value, bounds.maxText) : value;
  };
  if (mode === 'full') {
    // The replacer keeps V8 off its fast path: an entry it would leave as it is goes without it.
    const text = asItIs(entry, bounds.maxText, 0) ? JSON.stringify(entry) : JSON.stringify(entry, replacer);
    if (Buffer.byteLength(text) <= bounds.maxBytes) return text;
  }
  const digested = { ...entry };
  for (const field of heavy) if (digested[field] !== undefined && digested[field] !== null) digested[field] = digestOf(entry[field]);
  return JSON.stringify(digested, replacer);
}

/** Field names already tested against {@link SECRET_NAME}: the same few hundred names recur in every entry. */
const secretNames = new Map<string, boolean>();

function isSecretName(key: string): boolean {
  let secret = secretNames.get(key);
  if (secret === undefined) {
    secret = SECRET_NAME.test(key);
    if (secretNames.size < 10_000) secretNames.set(key, secret);
  }
  return secret;
}

/**
 * Whether `value` is recorded as JSON.stringify writes it: no field named like a credential
 * holds a value, no text needs cutting, nothing has a `toJSON` of its own. A walk without
 * allocations, cheaper than the replacer's call for every value; anything deep is left to it.
 */
function asItIs(value: unknown, maxText: number, depth: number): boolean {
  if (typeof value === 'string') return value.length * 3 <= maxText;
  if (typeof value !== 'object' || value === null) return true;
  if (depth > 32) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!asItIs(item, maxText, depth + 1)) return false;
    return true;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== null && field !== undefined && isSecretName(key)) return false;
    if (!asItIs(field, maxText, depth + 1)) return false;
  }
  return true;
}
