import { createHash } from 'node:crypto';

/** What a recorded value may take: each text at most `maxText` bytes, the whole at most `maxBytes` of JSON. */
export interface RecordBounds {
  readonly maxText: number;
  readonly maxBytes: number;
}

/** A node's record stays small enough to read in one go: 16 KiB a text, 256 KiB an entry. */
export const DEFAULT_RECORD_BOUNDS: RecordBounds = { maxText: 16 * 1024, maxBytes: 256 * 1024 };

/** A value recorded by its size and hash only (`TIERFLOW_RECORD=metadata`), or cut because it was too large. */
export interface Digest {
  readonly $digest: { readonly bytes: number; readonly sha256: string };
}

/** Names of fields whose values are never recorded, whatever their place: credentials. */
const SECRET_NAME = /(^|_|-)(api[-_]?key|apikey|authorization|password|passwd|secret|token|access[-_]?key|private[-_]?key|cookie)$/i;
export const REDACTED = '[redacted]';

export function digestOf(value: unknown): Digest {
  const text = JSON.stringify(value) ?? 'null';
  return { $digest: { bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') } };
}

export function isDigest(value: unknown): value is Digest {
  return typeof value === 'object' && value !== null && '$digest' in value;
}

/**
 * `value` made fit to record (pure): fields named like credentials redacted, each text longer
 * than `maxText` bytes cut with a note of its full size, and a whole still over `maxBytes`
 * replaced by its digest. JSON in, JSON out.
 */
export function bounded(value: unknown, bounds: RecordBounds = DEFAULT_RECORD_BOUNDS): unknown {
  const fitted = fit(value, bounds.maxText, 0);
  const text = JSON.stringify(fitted) ?? 'null';
  return Buffer.byteLength(text) > bounds.maxBytes ? digestOf(value) : fitted;
}

function fit(value: unknown, maxText: number, depth: number): unknown {
  if (typeof value === 'string') return cutText(value, maxText);
  if (typeof value !== 'object' || value === null) return typeof value === 'number' && !Number.isFinite(value) ? null : value;
  // Deeper than any message goes: recorded as its digest rather than walked.
  if (depth > 64) return digestOf(value);
  if (Array.isArray(value)) return value.map((item) => fit(item, maxText, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    if (item === undefined) continue;
    out[name] = SECRET_NAME.test(name) && item !== null ? REDACTED : fit(item, maxText, depth + 1);
  }
  return out;
}

/** A text cut to `maxText` bytes (on a character boundary), with a note of its full size. */
export function cutText(text: string, maxText: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxText) return text;
  const head = Buffer.from(text)
    .subarray(0, maxText)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${head}… [cut: ${bytes} bytes in all]`;
}
