import type { TierSlug } from '@tierflow/protocol';
import type { Party } from '../security/party.js';

/**
 * Keys and channels of the control path. Each record is written by one party only, and its key
 * names that party, so a Redis ACL can give each tier's user its own records and no one else's:
 * a Fleet user cannot rewrite a Dispatcher's step state, or put a cancellation in its name.
 */
export const controlKeys = (prefix: string) => ({
  /** A tier's state of a job between its passes (written and read by that tier alone). */
  step: (tier: TierSlug, jobId: string) => `${prefix}:step:${tier}:${jobId}`,
  /** The attempt of a job that left its worker to wait for room (engine/defer.ts), so its next pass is no new receipt. */
  deferred: (tier: TierSlug, jobId: string) => `${prefix}:deferred:${tier}:${jobId}`,
  /** Durable mark, by `writer`, that a message is cancelled: a job picked up later, or retried, sees it. */
  cancel: (writer: Party, messageId: string) => `${prefix}:cancel:${writer}:${messageId}`,
  /** Record, by `writer`'s watchdog, that a message had no outcome by its deadline. */
  timeout: (writer: TierSlug, messageId: string) => `${prefix}:timeout:${writer}:${messageId}`,
  /** A first_success round's members, written by the parent's tier; its first winner cancels the rest. */
  race: (parent: TierSlug, roundKey: string) => `${prefix}:race:${parent}:${roundKey}`,
  /** A first_success round's winner, written by the children's tier. */
  raceWinner: (child: TierSlug, roundKey: string) => `${prefix}:race-won:${child}:${roundKey}`,
  /**
   * The job keys of the children a parent sent in its current round (a set, written by the
   * parent's tier alone, with the round): a parent waits for these, not for whatever else names it
   * as its parent (redis/foreign-children.ts).
   */
  children: (parent: TierSlug, parentId: string) => `${prefix}:children:${parent}:${parentId}`,
  /** A tier's due watchdogs: a sorted set of its parent rounds by when their children's deadlines fall. */
  watchdogs: (tier: TierSlug) => `${prefix}:watchdogs:${tier}`,
  /** A root's trace id, for `tierflow trace` (written by the Monitor). */
  trace: (rootId: string) => `${prefix}:trace:${rootId}`,
  /** The root's trace id again, once the Monitor's exporter sent spans of it to a collector (written by the Monitor). */
  traceExported: (rootId: string) => `${prefix}:trace-exported:${rootId}`,
  /** A root's budget and what its run has spent so far (a hash: limits by the Monitor, counters by the charge script). */
  budget: (rootId: string) => `${prefix}:budget:${rootId}`,
  /** Roots that went over their budget, for a Monitor process to cancel (a sorted set by when). */
  budgetStops: `${prefix}:budget-stops`,
  /** A run's latest progress of each job of a tier: a hash by message id, written by that tier (docs/operations.md#progress). */
  progress: (tier: TierSlug, rootId: string) => `${prefix}:progress:${tier}:${rootId}`,
  /** What a tier's workers recorded of a job they ran alone after crashes (a hash, written by that tier): who is to blame for a crash. */
  crashes: (tier: TierSlug, jobId: string) => `${prefix}:crashes:${tier}:${jobId}`,
  /** A worker process's heartbeat (a record that expires), written by that worker (`<host>:<pid>`): `tierflow workers` lists them. */
  worker: (tier: TierSlug, processId: string) => `${prefix}:workers:${tier}:${processId}`,
  /**
   * A tier's registry of its workers: a sorted set of process ids by when each one's heartbeat
   * expires, written by that tier's workers with each beat, so listing the workers reads a few
   * keys and never scans the keyspace. A process id holds a `:`, so `index` is no process's.
   */
  workerIndex: (tier: TierSlug) => `${prefix}:workers:${tier}:index`,
  /** The questions a run waits on a person for (JSON, written by the root, deleted once it goes on): docs/protocol.md#clarification. */
  questions: (rootId: string) => `${prefix}:questions:${rootId}`,
  /** A person's answers to a run's questions (a hash by question id, written by clients). */
  answers: (rootId: string) => `${prefix}:answers:${rootId}`,
  /** The blockers a run waits to see lifted (JSON, written by the root, deleted once it goes on): docs/protocol.md#blocked-work. */
  blocked: (rootId: string) => `${prefix}:blocked:${rootId}`,
  /** The blockers lifted of a blocked run (a hash by blocker id, written by clients). */
  unblocks: (rootId: string) => `${prefix}:unblocks:${rootId}`,
  /**
   * The cell's runs by when they were submitted (a sorted set of root ids scored by milliseconds),
   * written by the client that enqueues each root and trimmed to the audit trail's retention as it
   * writes: `tierflow runs` pages through it (run-index/).
   */
  runIndex: `${prefix}:runs`,
  /**
   * What one party saw of a run, for finding it (a hash, written by that party, kept as long as the
   * audit trail): the client's objective and submission, each tier's task types, specialists,
   * models and error types, the Monitor's final status (run-index/run-facts.ts).
   */
  runFacts: (writer: Party, rootId: string) => `${prefix}:run-facts:${writer}:${rootId}`,
  /** A rerun's records (rerunKeys), read by every tier of its run. */
  rerun: (rootId: string) => rerunKeys(prefix, rootId),
  /** Sharded pub/sub channel (SPUBLISH, SSUBSCRIBE: it lives with the cell's slot) every worker of the cell listens on, to abort running handlers. */
  channel: `${prefix}:control`,
});
export type ControlKeys = ReturnType<typeof controlKeys>;

/** A child's round: its id without the last `-index`, e.g. `root.0-0.1` for `root.0-0.1-2`. */
export function roundKeyOf(childId: string): string | null {
  const dash = childId.lastIndexOf('-');
  const dot = childId.lastIndexOf('.');
  return dash > dot && dot > 0 ? childId.slice(0, dash) : null;
}

/** A run's audit trail: one stream per root (docs/operations.md#the-audit-trail). */
export function auditKey(prefix: string, rootId: string): string {
  return `${prefix}:audit:${rootId}`;
}

/** A run's recording: one stream per root of what each node did (docs/operations.md#recording). */
export function recordKey(prefix: string, rootId: string): string {
  return `${prefix}:record:${rootId}`;
}

/**
 * A rerun's records, written by its client before it submits the new root (rerun/rerun-spec.ts):
 * its spec (JSON), the recorded answers its model calls may replay (a hash by request hash), and
 * the recorded outcomes a fork's nodes may reuse (a hash by node path).
 */
export const rerunKeys = (prefix: string, rootId: string) => ({
  spec: `${prefix}:rerun:${rootId}`,
  replay: `${prefix}:replay:${rootId}`,
  reuse: `${prefix}:reuse:${rootId}`,
  /** The runs that rerun this one (a set of root ids, written by their clients, in this run's cell), for `tierflow status`. */
  reruns: `${prefix}:reruns:${rootId}`,
});
