import { TIER_NAMES, TIER_SLUGS, TierflowError, type TierName } from '@tierflow/protocol';
import { beadsRef, parseBeadsKey, type BeadsNamespace, type ParsedBeadsKey } from './beads-key.js';

/**
 * Which namespaces each tier writes (docs/protocol.md#beads-permissions); every tier reads
 * everything. One addition, for de-duplication (docs/protocol.md#de-duplication): each tier also
 * writes its own de-duplication records under `system/seen-messages/<its slug>/`, see
 * {@link canWrite}.
 */
export const WRITE_PERMISSIONS: Readonly<Record<TierName, readonly BeadsNamespace[]>> = {
  PROGRESS_MONITOR: ['system', 'history'],
  ABSTRACT_ARCHITECT: ['task'],
  ROUTING_DISPATCHER: ['routing'],
  SPECIALIZED_FLEET: ['execution'],
};

/** Where de-duplication records live, below `system/`. */
export const SEEN_MESSAGES_PATH = 'seen-messages';

/** The key of a tier's de-duplication record for one message: `system/seen-messages/<slug>/<id>`. */
export function seenMessageKey(tier: TierName, messageId: string): string {
  return parseBeadsKey(`system/${SEEN_MESSAGES_PATH}/${TIER_SLUGS[tier]}/${messageId}`).key;
}

/**
 * The Redis key prefix of a tier's de-duplication records (`<prefix>:beads:system/seen-messages/<slug>/`),
 * for the runtime's hot path, which appends message ids it has already validated.
 */
export function seenMessagesRedisPrefix(prefix: string, tier: TierName): string {
  return `${prefix}:beads:system/${SEEN_MESSAGES_PATH}/${TIER_SLUGS[tier]}/`;
}

/**
 * Whether `tier` may write `key` (a key or a `beads:` reference): a namespace it owns, or its own
 * `system/seen-messages/<slug>` and anything below it.
 *
 * @throws TierflowError (code `invalid_beads_key`) for a malformed key: that is a bug, not a "no".
 */
export function canWrite(tier: TierName, key: string): boolean {
  return mayWrite(tier, parseBeadsKey(key));
}

/**
 * Checks that `tier` may write `key` and returns the parsed key.
 *
 * @throws BeadsPermissionError when it may not; TierflowError (code `invalid_beads_key`) for a malformed key.
 */
export function checkWrite(tier: TierName, key: string): ParsedBeadsKey {
  const parsed = parseBeadsKey(key);
  if (!mayWrite(tier, parsed)) throw new BeadsPermissionError(tier, parsed);
  return parsed;
}

function mayWrite(tier: TierName, { namespace, path }: ParsedBeadsKey): boolean {
  if (WRITE_PERMISSIONS[tier].includes(namespace)) return true;
  const own = `${SEEN_MESSAGES_PATH}/${TIER_SLUGS[tier]}`;
  return namespace === 'system' && (path === own || path.startsWith(`${own}/`));
}

/**
 * A tier tried to write outside its namespaces. Permanent: the same write will be refused again.
 *
 * `ROUTING_DISPATCHER may not write beads:task/x: task/* is written by ABSTRACT_ARCHITECT only (ROUTING_DISPATCHER writes routing/*)`
 */
export class BeadsPermissionError extends TierflowError {
  override readonly name = 'BeadsPermissionError' as const;
  readonly tier: TierName;
  /** The refused key, without `beads:`. */
  readonly key: string;

  constructor(tier: TierName, key: ParsedBeadsKey) {
    super(deniedMessage(tier, key), { code: 'beads_write_denied', retryable: false });
    this.tier = tier;
    this.key = key.key;
  }
}

function deniedMessage(tier: TierName, { namespace, key }: ParsedBeadsKey): string {
  const writers = TIER_NAMES.filter((writer) => WRITE_PERMISSIONS[writer].includes(namespace)).join(' and ');
  const owned = WRITE_PERMISSIONS[tier].map((ns) => `${ns}/*`);
  let rule = `${namespace}/* is written by ${writers} only`;
  if (namespace === 'system') {
    rule += `, apart from each tier's own system/${SEEN_MESSAGES_PATH}/<slug>/*`;
    owned.push(`system/${SEEN_MESSAGES_PATH}/${TIER_SLUGS[tier]}/*`);
  }
  return `${tier} may not write ${beadsRef(key)}: ${rule} (${tier} writes ${owned.join(' and ')})`;
}
