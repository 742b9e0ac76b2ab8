import { isTierName, TierflowError, type TierName } from '@tierflow/protocol';

/** How a {@link BeadsStore} is set up. */
export interface BeadsStoreOptions {
  /** The tier writing through this store: its write permissions apply. */
  readonly tier: TierName;
  /** The deployment's key prefix; `{tierflow}` unless given. Keep it hash-tagged for Redis Cluster. */
  readonly prefix?: string;
  /** The expiry of a value written without its own `ttlMs`; 24 h unless given, `null` for none. */
  readonly defaultTtlMs?: number | null;
}

export interface ResolvedBeadsStoreOptions {
  readonly tier: TierName;
  readonly prefix: string;
  readonly defaultTtlMs: number | null;
}

export const DEFAULT_BEADS_PREFIX = '{tierflow}';
export const DEFAULT_BEADS_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Fills in the defaults and checks the result: a known tier, a non-empty prefix without
 * whitespace, a default TTL that is `null` or a whole number of milliseconds ≥ 1.
 *
 * @throws TierflowError (permanent, code `invalid_config`) naming every problem.
 */
export function resolveBeadsStoreOptions(input: BeadsStoreOptions): ResolvedBeadsStoreOptions {
  const resolved: ResolvedBeadsStoreOptions = {
    tier: input.tier,
    prefix: input.prefix ?? DEFAULT_BEADS_PREFIX,
    defaultTtlMs: input.defaultTtlMs === undefined ? DEFAULT_BEADS_TTL_MS : input.defaultTtlMs,
  };
  const problems: string[] = [];
  if (!isTierName(resolved.tier)) problems.push(`tier (${String(resolved.tier)}) must be one of the four tier names`);
  if (resolved.prefix === '' || /\s/.test(resolved.prefix)) problems.push(`prefix (${JSON.stringify(resolved.prefix)}) must be non-empty, without whitespace`);
  if (resolved.defaultTtlMs !== null && !isTtl(resolved.defaultTtlMs)) {
    problems.push(`defaultTtlMs (${resolved.defaultTtlMs}) must be null or a whole number of milliseconds, 1 or more`);
  }
  if (problems.length > 0) throw TierflowError.permanent(`invalid Beads store options: ${problems.join('; ')}`, { code: 'invalid_config' });
  return resolved;
}

/**
 * The expiry for one write: its own `ttlMs` if given (`null` for none), else the store's default.
 *
 * @throws TierflowError (permanent, code `invalid_beads_ttl`) for anything but null or a whole number ≥ 1.
 */
export function resolveTtl(ttlMs: number | null | undefined, defaultTtlMs: number | null): number | null {
  if (ttlMs === undefined) return defaultTtlMs;
  if (ttlMs === null || isTtl(ttlMs)) return ttlMs;
  throw TierflowError.permanent(`invalid Beads TTL ${ttlMs}: must be null or a whole number of milliseconds, 1 or more`, { code: 'invalid_beads_ttl' });
}

// Redis refuses `PX 0`, so a TTL is at least a millisecond.
function isTtl(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 1;
}
