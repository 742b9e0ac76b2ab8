import { isJsonObject } from './json.js';

/**
 * The canonical JSON text of a value, the form a message signature covers: object members sorted
 * by key (UTF-16 code units) at every depth, no whitespace, strings and numbers written as
 * `JSON.stringify` writes them. For the values JSON carries this is RFC 8785 (JCS), so another
 * implementation can reproduce it. Members whose value is `undefined` are left out, as in JSON.
 *
 * @throws TypeError for what JSON cannot hold (a function, a symbol, a bigint, a non-finite number).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item: unknown) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (isJsonObject(value)) {
    const members = Object.keys(value)
      .sort()
      .filter((key) => value[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
    return `{${members.join(',')}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`canonical JSON cannot hold ${value}`);
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  return text;
}

/** What a signature covers: the canonical JSON of a signed record (a message, a root objective) without its own `signature`. */
export function signingInput(record: Readonly<Record<string, unknown>>): string {
  const { signature: _signature, ...signed } = record;
  return canonicalJson(signed);
}
