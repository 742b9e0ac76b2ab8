import { TierflowError } from '@tierflow/protocol';

/** Anything with zod's `parse`: a zod schema, or a hand-written check that throws on a bad value. */
export interface BeadsValueSchema<T> {
  parse(value: unknown): T;
}

/**
 * A value as stored: JSON, so it can be read when debugging (docs/protocol.md#beads-namespaces).
 * What JSON cannot hold is lost as `JSON.stringify` loses it (`undefined` properties, `NaN` →
 * `null`).
 *
 * @throws TierflowError (permanent, code `beads_unserializable`) for a value with no JSON form:
 *   `undefined`, a function, a BigInt, a cycle.
 */
export function encodeBeadsValue(key: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw unserializable(key, cause instanceof Error ? cause.message : String(cause), cause);
  }
  // JSON.stringify returns undefined, not a string, for undefined, functions and symbols.
  if (typeof text !== 'string') throw unserializable(key, `${typeof value} has no JSON form`);
  return text;
}

/**
 * A stored value read back, and checked with `schema` when one is given.
 *
 * @throws TierflowError (permanent) with code `beads_corrupt` when the text is not JSON, or
 *   `beads_invalid_value` when `schema` refuses the value; both name the key.
 */
export function decodeBeadsValue<T>(key: string, text: string, schema?: BeadsValueSchema<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text;
    throw TierflowError.permanent(`beads:${key} holds a value that is not JSON: ${JSON.stringify(shown)}`, { code: 'beads_corrupt', cause });
  }
  if (schema === undefined) return value as T;
  try {
    return schema.parse(value);
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    throw TierflowError.permanent(`beads:${key} holds a value its schema refuses: ${why}`, { code: 'beads_invalid_value', cause });
  }
}

function unserializable(key: string, why: string, cause?: unknown): TierflowError {
  return TierflowError.permanent(`cannot write beads:${key}: the value is not JSON-serialisable (${why})`, { code: 'beads_unserializable', cause });
}
