import { fastSafeParse } from '@tierflow/protocol';
import type { z } from 'zod';
import { checkSignature } from '../security/signing.js';
import type { Party } from '../security/party.js';
import type { SigningConfig } from '../security/signing-keys.js';

/** A record read back from Redis: its value, or why it cannot be used. */
export type RecordRead<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** Who must have signed a record; `signing` null: the deployment does not sign, and nothing is checked. */
export interface SignedBy {
  readonly signing: SigningConfig | null;
  readonly writer: Party | readonly Party[];
}

export interface StoredRecordOptions<T> {
  /** What the record is called in a reason, article included: `'a timeout record'`. */
  readonly what: string;
  /** Parse with the protocol's fast parser (same answers as zod's): for records read on the hot path. */
  readonly fast?: boolean;
  /** A cheaper test tried before the schema: a value it passes is taken as it is (defaults already written out). */
  readonly accept?: (value: unknown) => value is T;
  /** A check of the parsed record, such as that it is for this job: null when it holds, else why not. */
  readonly check?: (value: T) => string | null;
  /** The party that must have signed it, when the deployment signs. */
  readonly signedBy?: SignedBy;
}

/**
 * Reads a record the runtime stored as JSON text. Anyone who can write Redis can write one, so it
 * is read as input: JSON, then the schema (or `accept`), then `check`, then, when the deployment
 * signs, the signature over the record as stored (before the schema filled in any default).
 * The first that fails is the reason. Never throws.
 */
export function readStoredRecord<S extends z.ZodType>(text: string, schema: S, options: StoredRecordOptions<z.output<S>>): RecordRead<z.output<S>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: `not JSON: ${preview(text)}` };
  }
  return readValue(value, schema, options, text);
}

/** {@link readStoredRecord} for a record already parsed from its JSON (BullMQ's job data, say). Never throws. */
export function readStoredValue<S extends z.ZodType>(value: unknown, schema: S, options: StoredRecordOptions<z.output<S>>): RecordRead<z.output<S>> {
  return readValue(value, schema, options, null);
}

function readValue<S extends z.ZodType>(value: unknown, schema: S, options: StoredRecordOptions<z.output<S>>, text: string | null): RecordRead<z.output<S>> {
  let record: z.output<S>;
  if (options.accept?.(value)) {
    record = value;
  } else {
    const parsed = options.fast ? fastSafeParse(schema, value) : schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue ? `${issue.path.join('.') || '(the record)'}: ${issue.message}` : 'invalid';
      return { ok: false, reason: `not ${options.what}: ${where}${text === null ? '' : ` in ${preview(text)}`}` };
    }
    record = parsed.data;
  }
  const problem = options.check?.(record) ?? signatureProblem(value, options.signedBy);
  return problem === null ? { ok: true, value: record } : { ok: false, reason: problem };
}

/** Why a record as stored (parsed from its JSON, nothing filled in) is not signed by `signedBy.writer`; null when it is, or when nothing is to be checked. */
export function signatureProblem(stored: unknown, signedBy: SignedBy | undefined): string | null {
  if (!signedBy?.signing) return null;
  const check = checkSignature(stored, signedBy.signing, signedBy.writer);
  return check.ok ? null : check.reason;
}

/** The start of a text, for a log line: bad input is shown, never in full. */
export function preview(text: string, length = 80): string {
  return JSON.stringify(text.length > length ? `${text.slice(0, length)}…` : text);
}
