import { wildcardMatches } from './wildcard.js';

/**
 * Collaboration boundaries (docs/protocol.md#collaboration-boundaries): who may hand
 * work to whom. Parties are named as a tier's slug (`monitor`, `architect`, `dispatcher`,
 * `fleet`) or a Fleet specialist as `fleet:<name>`. Each key is a sender, each value the targets
 * it may hand work to; `*` in either stands for any run of characters. A sender that no key
 * names is not bounded, so declaring the Dispatcher's boundary leaves the Monitor and the
 * Architect as they were.
 *
 * ```ts
 * const boundaries = { dispatcher: ['fleet:sim', 'fleet:python-*'] };
 * checkBoundary(boundaries, 'dispatcher', 'fleet:python-lora'); // { ok: true }
 * checkBoundary(boundaries, 'dispatcher', 'fleet:shell');       // { ok: false, reason: …, allowed: ['fleet:sim', 'fleet:python-*'] }
 * ```
 */
export type Boundaries = Readonly<Record<string, readonly string[]>>;

/** A handoff within the boundaries, or why not and where the sender may hand work instead. */
export type BoundaryVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly allowed: readonly string[] };

/** The party a delegation goes to: the tier below, or for the Fleet the specialist it names. */
export function targetParty(tierSlug: string, specialist: string | null | undefined): string {
  return tierSlug === 'fleet' && specialist ? `fleet:${specialist}` : tierSlug;
}

/** Whether `from` may hand work to `to`. Pure. */
export function checkBoundary(boundaries: Boundaries | null, from: string, to: string): BoundaryVerdict {
  const allowed = allowedTargets(boundaries, from);
  if (allowed === null || allowed.some((pattern) => wildcardMatches(pattern, to))) return { ok: true };
  return { ok: false, reason: `${from} may not hand work to ${to}: outside its collaboration boundaries`, allowed };
}

/** The target patterns of every key naming `from`; null when none does (not bounded). */
function allowedTargets(boundaries: Boundaries | null, from: string): string[] | null {
  if (boundaries === null) return null;
  const keys = Object.keys(boundaries).filter((key) => wildcardMatches(key, from));
  return keys.length === 0 ? null : [...new Set(keys.flatMap((key) => boundaries[key] ?? []))];
}
