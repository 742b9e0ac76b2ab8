import type { RedisClient } from '@tierflow/beads';
import { controlKeys } from '../redis/keys.js';
import type { RunBlocker, RunNode } from '../audit/run-tree-merge.js';
import type { SigningConfig } from '../security/signing-keys.js';
import { readBlockedRun, readUnblocks } from './blocked-records.js';
import { runStatus } from '../status/run-status.js';

/** A run that waits on blocked work: since when, until when, and what blocks it. */
export interface RunBlockedWait {
  readonly since: string;
  readonly until: string;
  readonly blockers: RunBlocker[];
}

/** The blockers a run waits on now, with those lifted so far; null when it is not blocked. Never throws on what it reads. */
export async function readRunBlocked(redis: RedisClient, prefix: string, rootId: string, signing: SigningConfig | null): Promise<RunBlockedWait | null> {
  const keys = controlKeys(prefix);
  const [view, unblocks] = await Promise.all([redis.get(keys.blocked(rootId)), redis.hgetall(keys.unblocks(rootId)).catch(() => ({}))]);
  const run = readBlockedRun(view);
  if (!run) return null;
  const lifted = readUnblocks(unblocks, signing, run.since).notes;
  return {
    since: new Date(run.since).toISOString(),
    until: new Date(run.until).toISOString(),
    blockers: run.blockers.map(({ id, blocker, tier }) => ({ id, blocker, tier, unblocked: lifted.get(id) ?? null })),
  };
}

/**
 * The run's tree with its blocked wait shown at the root: status `blocked`, the blockers, since
 * and until when. A root that has answered waits on nothing, whatever a stale view says. Pure.
 */
export function withBlockedWait(tree: RunNode, wait: RunBlockedWait | null): RunNode {
  if (!wait || tree.source === 'outcome') return tree;
  return { ...tree, status: runStatus({ queueState: tree.queue_state, outcome: null, blocked: true }), blockers: wait.blockers, blocked_since: wait.since, waiting_until: wait.until };
}
