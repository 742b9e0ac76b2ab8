/**
 * Where the tiers' learning lives in Beads (docs/protocol.md#beads-keys): the Monitor's history
 * per task type × specialist (and model) and per task type's revisions under `history/`, its
 * routing accuracy and bottlenecks under `system/`. Each name is one key segment, percent-encoded.
 */

/** `system/bottlenecks`: the slowest and least reliable task type × specialist pairs ({@link Bottlenecks}). */
export const BOTTLENECKS_KEY = 'system/bottlenecks';

const SPECIALISTS = 'history/specialists';

/**
 * A name as one Beads key segment: percent-encoded, so a `/` cannot nest it and a space cannot
 * break it; `*` too (a glob character in SCAN's patterns), and `.`/`..` (refused as segments) as `%2E`.
 */
export function historySegment(name: string): string {
  const encoded = encodeURIComponent(name).replaceAll('*', '%2A');
  return /^\.+$/.test(encoded) ? encoded.replaceAll('.', '%2E') : encoded;
}

/** `history/specialists/<task type>/<specialist>`: a specialist's decayed history on one task type. */
export function specialistHistoryKey(taskType: string, specialist: string): string {
  return `${SPECIALISTS}/${historySegment(taskType)}/${historySegment(specialist)}`;
}

/**
 * `history/specialists/<task type>/<specialist>/recent`: the same with a shorter half-life
 * (core's `RECENT_HALF_LIFE_DIVISOR`), kept to tell when the long history has gone stale.
 */
export function recentHistoryKey(taskType: string, specialist: string): string {
  return `${specialistHistoryKey(taskType, specialist)}/recent`;
}

/** `history/specialists/<task type>/<specialist>/models/<model>`: the same, for one model behind the specialist. */
export function modelHistoryKey(taskType: string, specialist: string, model: string): string {
  return `${specialistHistoryKey(taskType, specialist)}/models/${historySegment(model)}`;
}

/** `history/revisions/<task type>`: how the revisions of a task type went. */
export function revisionHistoryKey(taskType: string): string {
  return `history/revisions/${historySegment(taskType)}`;
}

/** `system/routing-accuracy`, or `system/routing-accuracy/<task type>`: how routing choices went. */
export function routingAccuracyKey(taskType?: string): string {
  return taskType === undefined ? 'system/routing-accuracy' : `system/routing-accuracy/${historySegment(taskType)}`;
}

/** The glob of every specialist and model history key, or of one task type's. */
export function specialistHistoryPattern(taskType?: string): string {
  return taskType === undefined ? `${SPECIALISTS}/*` : `${SPECIALISTS}/${historySegment(taskType)}/*`;
}

/** What a history key names, read back; null for a key of another shape. */
export type HistoryKeyParts = { readonly taskType: string; readonly specialist: string; readonly model: string | null };

/** A specialist or model history key taken apart (the inverse of {@link specialistHistoryKey} and {@link modelHistoryKey}). */
export function parseHistoryKey(key: string): HistoryKeyParts | null {
  if (!key.startsWith(`${SPECIALISTS}/`)) return null;
  const segments = key.slice(SPECIALISTS.length + 1).split('/');
  const names = segments.map(decodeSegment);
  if (names.some((name) => name === null || name === '')) return null;
  if (segments.length === 2) return { taskType: names[0]!, specialist: names[1]!, model: null };
  if (segments.length === 4 && segments[2] === 'models') return { taskType: names[0]!, specialist: names[1]!, model: names[3]! };
  return null;
}

function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
