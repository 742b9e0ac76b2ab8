import { beadsAclKeyRules, escapeRedisGlob, tierOfSlug } from '@tierflow/beads';
import { controlKeys, DEAD_LETTER_QUEUE, QUEUE_OF, resolveRuntimeOptions, type TierSlug } from '@tierflow/runtime';
import { TIER_SLUGS } from '../tiers.js';
import { auditAclSelector } from './audit-acl.js';

/** The Redis users of a deployment: one per tier, `client` for the CLI and enqueuers, `admin` for operators. */
export const ACL_USERS = ['admin', 'client', ...TIER_SLUGS] as const;
export type AclUser = (typeof ACL_USERS)[number];

/** What `default` becomes: off, no password, no commands, no keys, no channels. */
export const DISABLED_DEFAULT_USER = ['off', 'resetpass', 'resetkeys', 'resetchannels', '-@all'] as const;

/**
 * Commands of the tiers and the client: data commands, transactions, pub/sub, and what BullMQ
 * and ioredis need besides (scripts, INFO for the version check, TIME inside its scripts, CLIENT
 * SETNAME); nothing @dangerous (KEYS, FLUSHALL, CONFIG, DEBUG, …) and no FUNCTION.
 */
const APP_COMMANDS = [
  '-@all',
  '+@read',
  '+@write',
  '+@connection',
  '+@transaction',
  '+@pubsub',
  '-@dangerous',
  '-function',
  '+eval',
  '+evalsha',
  '+script|load',
  '+script|exists',
  '+info',
  '+time',
  '+client|setname',
] as const;

/**
 * Each user's permission rules for a deployment's prefix, in Redis 7 ACL syntax (no state or
 * password: see acl-file.ts). The runtime's keys are not split by tier: a child's completion
 * writes its parent's queue, and every worker process runs watchdogs and cancellations for any
 * tier, so every tier reads and writes every queue and the control keys. Beads is where tiers
 * differ: each reads all of it and writes only what its Beads permissions allow.
 *
 * @throws Error for a prefix the runtime refuses or that an ACL line cannot hold.
 */
export function aclPermissions(prefix: string): Record<AclUser, string[]> {
  resolveRuntimeOptions({ prefix });
  if (/\s/.test(prefix)) throw new Error(`prefix ${JSON.stringify(prefix)}: an ACL rule cannot hold whitespace`);
  const p = escapeRedisGlob(prefix);
  const keys = controlKeys(p);
  const queues = Object.values(QUEUE_OF).map((queue) => `~${p}:${queue}:*`);
  const deadLetters = `~${p}:${DEAD_LETTER_QUEUE}:*`;
  const cancelMarks = `~${keys.cancel('*')}`;
  const channel = `&${keys.channel}`;
  const reset = ['resetkeys', 'resetchannels'];
  const tier = (slug: TierSlug): string[] => [
    ...reset,
    ...APP_COMMANDS,
    ...queues,
    `~${keys.watchdogs}`,
    deadLetters,
    // Step state lives at <prefix>:step:<job id> (the runtime's step store).
    `~${p}:step:*`,
    cancelMarks,
    `~${keys.timeout('*')}`,
    `~${keys.race('*')}`,
    `~${keys.raceWinner('*')}`,
    // Only the Monitor records a root's trace id.
    ...(slug === 'monitor' ? [`~${keys.trace('*')}`] : []),
    ...beadsAclKeyRules(tierOfSlug(slug)!, prefix),
    channel,
    // Append-only: the audit streams are reachable through this selector alone.
    auditAclSelector(p),
  ];
  return {
    admin: [...reset, '+@all', '~*', '&*'],
    // Enqueues, waits, reads trees, results and audit trails, cancels anywhere, replays dead letters.
    client: [...reset, ...APP_COMMANDS, ...queues, deadLetters, cancelMarks, `%R~${keys.trace('*')}`, `%R~${p}:beads:*`, channel, auditAclSelector(p)],
    monitor: tier('monitor'),
    architect: tier('architect'),
    dispatcher: tier('dispatcher'),
    fleet: tier('fleet'),
  };
}
