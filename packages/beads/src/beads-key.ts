import { TierflowError } from '@tierflow/protocol';

/** The five Beads namespaces (docs/protocol.md#beads-namespaces). */
export const BEADS_NAMESPACES = ['task', 'routing', 'execution', 'system', 'history'] as const;
export type BeadsNamespace = (typeof BEADS_NAMESPACES)[number];

/** What a reference to Beads starts with on the wire: `beads:task/current-objective`. */
export const BEADS_REF_PREFIX = 'beads:';

/** The longest Beads key accepted, in characters, `beads:` not counted. */
export const MAX_BEADS_KEY_LENGTH = 512;

/** A Beads key taken apart: `task/constraints` is namespace `task`, path `constraints`. */
export interface ParsedBeadsKey {
  readonly namespace: BeadsNamespace;
  /** What follows the namespace and its slash; never empty. */
  readonly path: string;
  /** `<namespace>/<path>`, without `beads:`. */
  readonly key: string;
}

export function isBeadsNamespace(value: unknown): value is BeadsNamespace {
  return typeof value === 'string' && (BEADS_NAMESPACES as readonly string[]).includes(value);
}

/**
 * Parses a Beads key (`task/x`) or reference (`beads:task/x`). Keys are paths of non-empty
 * segments; `.` and `..` are refused so that no two spellings name one key and no key appears to
 * climb out of its namespace.
 *
 * @throws TierflowError (permanent, code `invalid_beads_key`) for an unknown namespace, an empty
 *   path or segment, a `.` or `..` segment, whitespace or control characters, or more than
 *   {@link MAX_BEADS_KEY_LENGTH} characters.
 */
export function parseBeadsKey(keyOrRef: string): ParsedBeadsKey {
  if (typeof keyOrRef !== 'string') throw invalid(String(keyOrRef), `expected a string, got ${typeof keyOrRef}`);
  const key = keyOrRef.startsWith(BEADS_REF_PREFIX) ? keyOrRef.slice(BEADS_REF_PREFIX.length) : keyOrRef;
  if (key.length > MAX_BEADS_KEY_LENGTH) throw invalid(keyOrRef, `${key.length} characters, more than ${MAX_BEADS_KEY_LENGTH}`);
  if (/[\s\p{Cc}]/u.test(key)) throw invalid(keyOrRef, 'whitespace and control characters are not allowed');

  const slash = key.indexOf('/');
  const namespace = slash === -1 ? key : key.slice(0, slash);
  const path = slash === -1 ? '' : key.slice(slash + 1);
  if (!isBeadsNamespace(namespace)) {
    throw invalid(keyOrRef, `unknown namespace "${namespace}"; expected one of ${BEADS_NAMESPACES.join(', ')}`);
  }
  if (path === '') throw invalid(keyOrRef, `empty path; expected ${namespace}/<path>`);
  for (const segment of path.split('/')) {
    if (segment === '') throw invalid(keyOrRef, 'empty path segment (a leading, trailing or doubled "/")');
    if (segment === '.' || segment === '..') throw invalid(keyOrRef, `"${segment}" segments are not allowed`);
  }
  return { namespace, path, key };
}

/** The reference form of a key: `task/x` → `beads:task/x` (a reference stays as it is). */
export function beadsRef(key: string): string {
  return `${BEADS_REF_PREFIX}${parseBeadsKey(key).key}`;
}

function invalid(keyOrRef: string, why: string): TierflowError {
  const shown = keyOrRef.length > 80 ? `${keyOrRef.slice(0, 80)}…` : keyOrRef;
  return TierflowError.permanent(`invalid Beads key ${JSON.stringify(shown)}: ${why}`, { code: 'invalid_beads_key' });
}
