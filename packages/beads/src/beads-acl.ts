import { TIER_SLUGS, type TierName } from '@tierflow/protocol';
import { SEEN_MESSAGES_PATH, WRITE_PERMISSIONS } from './permissions.js';

/**
 * The Redis ACL key rules (Redis 7) that give a tier's Redis user what `canWrite` gives the
 * tier: read every Beads key (`%R~`), write (`~`) only its namespaces and its own
 * de-duplication records. Derived from {@link WRITE_PERMISSIONS}, so Redis and the store refuse
 * the same writes, the store with a clear error first, Redis for whoever bypasses the store.
 *
 * `prefixPattern` is a glob of the prefixes: a prefix as `escapeRedisGlob` escapes it, or one that
 * matches several (`{tierflow:*}`, every cell of a deployment).
 *
 * `beadsAclKeyRules('SPECIALIZED_FLEET', '{tierflow}')` →
 * `['%R~{tierflow}:beads:*', '~{tierflow}:beads:execution/*', '~{tierflow}:beads:system/seen-messages/fleet', '~{tierflow}:beads:system/seen-messages/fleet/*']`
 */
export function beadsAclKeyRules(tier: TierName, prefixPattern: string): string[] {
  const base = `${prefixPattern}:beads:`;
  const owned = WRITE_PERMISSIONS[tier];
  const seen = `${base}system/${SEEN_MESSAGES_PATH}/${TIER_SLUGS[tier]}`;
  return [`%R~${base}*`, ...owned.map((namespace) => `~${base}${namespace}/*`), ...(owned.includes('system') ? [] : [`~${seen}`, `~${seen}/*`])];
}
