/** The most characters one value or message keeps in a report. */
export const MAX_REPORTED_CHARS = 1_000;

/** Pure: JSON values equal as JSON: same type, same array order, same keys in any order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  return aKeys.length === Object.keys(b).length && aKeys.every((key) => Object.hasOwn(bRecord, key) && jsonEqual((a as Record<string, unknown>)[key], bRecord[key]));
}

/** Pure: `text`, or its first `max` characters and how long it was. */
export function truncate(text: string, max = MAX_REPORTED_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters in all)`;
}

/** Pure: a JSON value as it goes into a report: itself when short, else its JSON text truncated. */
export function boundedValue(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text.length <= MAX_REPORTED_CHARS ? value : truncate(text);
}
