import { TierflowError, tierOfSlug, type TierSlug } from '@tierflow/protocol';
import { beadsAclKeyRules, escapeRedisGlob } from '@tierflow/beads';
import { agentBlockKey, cellsGlob, controlKeys, DEAD_LETTER_QUEUE, metricStoreKeys, modelLimitsGlob, NOTIFY_QUEUE, QUEUE_OF, recordKey, rerunKeys } from '@tierflow/runtime/admin';
import { resolveRuntimeOptions } from '@tierflow/runtime';
import { ALL_TIERS } from '../tiers.js';
import { auditAclSelector } from './audit-acl.js';

/** The Redis users of a deployment: one per tier, `client` for the CLI and enqueuers, `admin` for operators. */
export const ACL_USERS = ['admin', 'client', ...ALL_TIERS] as const;
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
 * password: see acl-file.ts). The queues are shared (a child's completion writes its parent's
 * queue; a forged job on a queue is refused by its signature, when the deployment signs). Every
 * record of the control path is its writer's: a tier writes only its own step state, watchdogs,
 * timeout records, cancellation marks, race records and sets of the children it sent, and reads
 * the others' (a child reads its parent's marks, and the set of children its parent sent). Beads likewise: each tier reads all of it and writes only what its Beads
 * permissions allow.
 *
 * With several cells, the rules cover every cell's prefix (`{tierflow:*}`), so changing the number
 * of cells needs no new users.
 *
 * @throws Error for a prefix the runtime refuses or that an ACL line cannot hold.
 */
export function aclPermissions(prefix: string, cells = 1): Record<AclUser, string[]> {
  resolveRuntimeOptions({ prefix, cells });
  if (/\s/.test(prefix)) throw TierflowError.permanent(`prefix ${JSON.stringify(prefix)}: an ACL rule cannot hold whitespace`, { code: 'invalid_config' });
  const p = cellsGlob({ prefix, cells });
  const keys = controlKeys(p);
  const rerun = rerunKeys(p, '*');
  const queues = Object.values(QUEUE_OF).map((queue) => `~${p}:${queue}:*`);
  const deadLetters = `~${p}:${DEAD_LETTER_QUEUE}:*`;
  // The webhook deliveries (docs/operations.md#webhooks): every tier queues the events it sees, the Monitor delivers them, a client reads them.
  const webhooks = `${p}:${NOTIFY_QUEUE}:*`;
  const channel = `&${keys.channel}`;
  const reset = ['resetkeys', 'resetchannels'];
  // Records of every party, for reading: `*` as a party matches them all.
  const anyone = '*' as TierSlug;
  const tier = (slug: TierSlug): string[] => [
    ...reset,
    ...APP_COMMANDS,
    ...queues,
    deadLetters,
    // The tier's own records, to write.
    `~${keys.step(slug, '*')}`,
    `~${keys.deferred(slug, '*')}`,
    `~${keys.watchdogs(slug)}`,
    `~${keys.cancel(slug, '*')}`,
    `~${keys.timeout(slug, '*')}`,
    `~${keys.race(slug, '*')}`,
    `~${keys.raceWinner(slug, '*')}`,
    `~${keys.progress(slug, '*')}`,
    `~${keys.worker(slug, '*')}`,
    `~${keys.children(slug, '*')}`,
    `~${keys.crashes(slug, '*')}`,
    // What its nodes add to the run index, with their answers (run-index/).
    `~${keys.runFacts(slug, '*')}`,
    // Everyone's marks, timeout records and races, to read; and which children each parent sent,
    // which a child's completion reads to move its parent on (redis/foreign-children.ts).
    `%R~${keys.children(anyone, '*')}`,
    `%R~${keys.cancel(anyone, '*')}`,
    `%R~${keys.timeout(anyone, '*')}`,
    `%R~${keys.race(anyone, '*')}`,
    `%R~${keys.raceWinner(anyone, '*')}`,
    `%R~${keys.progress(anyone, '*')}`,
    // A run's budget: the Monitor writes its limits and takes the stops; a model call from any
    // tier (a specialist, a planner) charges it through one script.
    `~${keys.budget('*')}`,
    `~${keys.budgetStops}`,
    // The models' shared limits (docs/operations.md#model-limits), under the deployment's prefix whatever the cells: any tier's model calls reserve and settle there.
    `~${modelLimitsGlob(escapeRedisGlob(prefix))}`,
    // Agents blocked after a hash mismatch (docs/operations.md#governed-handoffs), kept in the first cell: the Fleet blocks them and reads them.
    ...(slug === 'fleet' ? [`~${agentBlockKey(p, '*')}`] : []),
    // Only the Monitor records a root's trace id (and marks it exported), puts a run's questions to a person and publishes its blockers; it reads the answers and unblocks.
    ...(slug === 'monitor' ? [`~${keys.trace('*')}`, `~${keys.traceExported('*')}`, `~${keys.questions('*')}`, `%R~${keys.answers('*')}`, `~${keys.blocked('*')}`, `%R~${keys.unblocks('*')}`] : []),
    `~${webhooks}`,
    ...beadsAclKeyRules(tierOfSlug(slug)!, p),
    // What each node did (docs/operations.md#recording): every tier records its own nodes in the run's stream.
    `~${recordKey(p, '*')}`,
    // A rerun's records, written by its client: every tier of the run reads them.
    `%R~${rerun.spec}`,
    `%R~${rerun.replay}`,
    `%R~${rerun.reuse}`,
    // The tier's own part of the deployment metric store (docs/operations.md#the-deployment-metric-store).
    `~${metricStoreKeys(p, slug).totals}`,
    `~${metricStoreKeys(p, slug).minute('*')}`,
    channel,
    // Append-only: the audit streams are reachable through this selector alone.
    auditAclSelector(p),
  ];
  return {
    admin: [...reset, '+@all', '~*', '&*'],
    // Enqueues, waits, reads trees, results and audit trails, cancels anywhere, replays dead letters.
    client: [
      ...reset,
      ...APP_COMMANDS,
      ...queues,
      deadLetters,
      `~${keys.cancel('client', '*')}`,
      `%R~${keys.trace('*')}`,
      `%R~${keys.traceExported('*')}`,
      `%R~${keys.progress(anyone, '*')}`,
      // A run's tree tells a job parked for its model (deferred) from one waiting out a retry.
      `%R~${keys.deferred(anyone, '*')}`,
      `%R~${keys.worker(anyone, '*')}`,
      // A person answers a run's questions: the client writes the answers, and reads the questions.
      `~${keys.answers('*')}`,
      `%R~${keys.questions('*')}`,
      // Whoever unblocks a run writes the unblocks, and reads the blockers.
      `~${keys.unblocks('*')}`,
      `%R~${keys.blocked('*')}`,
      `%R~${webhooks}`,
      `%R~${p}:beads:*`,
      // The run index: the client enters each root it enqueues, and reads what every party added, and what each run spent.
      `~${keys.runIndex}`,
      `~${keys.runFacts('client', '*')}`,
      `%R~${keys.runFacts(anyone, '*')}`,
      `%R~${keys.budget('*')}`,
      // Reads runs' recordings (tierflow inspect, runs export); writes a rerun's records before it submits the rerun.
      `%R~${recordKey(p, '*')}`,
      `~${rerun.spec}`,
      `~${rerun.replay}`,
      `~${rerun.reuse}`,
      // …and the original's set of reruns, in its cell.
      `~${rerun.reruns}`,
      // tierflow serve: reads every writer's part of the metric store, and writes the queue depths it samples.
      `%R~${p}:metrics:*`,
      `~${metricStoreKeys(p, 'serve').totals}`,
      `~${metricStoreKeys(p, 'serve').minute('*')}`,
      channel,
      auditAclSelector(p),
    ],
    monitor: tier('monitor'),
    architect: tier('architect'),
    dispatcher: tier('dispatcher'),
    fleet: tier('fleet'),
  };
}
