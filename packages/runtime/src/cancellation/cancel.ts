import { parseMessage, PROTOCOL_VERSION, tierBelow, type CancellationMessage, type TierName } from '@tierflow/protocol';
import type { Job } from 'bullmq';
import type { RedisClient } from '@tierflow/beads';
import { cancellationsSent } from '../audit/audit-cancellations.js';
import { AUDIT_CLIENT } from '../audit/audit-entry.js';
import { controlKeys } from '../redis/keys.js';
import { CLIENT, type Party } from '../security/party.js';
import { MAX_NOTICE_IDS, MAX_NOTICE_REASON, type AbortNotice } from './control-notice.js';
import { FINISHED_STATES, type JobFinder } from '../redis/job-finder.js';
import { signRecord } from '../security/signing.js';
import { unfinishedDescendants, type TreeNode } from './unfinished-tree.js';
import type { Signer } from '../security/signing-keys.js';

export interface CancelOptions {
  readonly reason: string;
  /** Cancel every descendant too (the default), or only the target. */
  readonly cascade?: boolean;
  /** The tier the cancellation comes from on the wire; an operator acts through the Monitor. */
  readonly source?: TierName;
  /** Who writes (and, when signing, signs) the marks: a tier, or the client (the default) for an operator. */
  readonly writer?: Party;
  /** For a first_success round: the winner cancelling its siblings. A tier's mark on its own tier's work holds only then. */
  readonly winner?: string;
  /** How long the marks are kept; they must outlive the jobs they stop. */
  readonly markTtlMs: number;
  /** The writer's signer, when the deployment signs: the marks are signed by the party that writes them. */
  readonly signer?: Signer | null;
  /** Now, on the deployment's clock (the marks' time); this host's clock when left out. */
  readonly now?: number;
  /** The error_type the stopped work answers with (e.g. budget_exceeded); `cancelled` when left out. */
  readonly errorType?: string;
}

export type CancelReport =
  | { readonly outcome: 'cancelled'; readonly target: string; readonly tier: TierName; readonly nodes: readonly string[] }
  | { readonly outcome: 'finished'; readonly target: string; readonly tier: TierName; readonly state: string }
  | { readonly outcome: 'unknown'; readonly target: string };

/**
 * Cancels a message's work wherever it stands. The order matters:
 * 1. a durable mark for every node to stop, so a job that is waiting, delayed for a retry, or
 *    picked up a moment later answers `cancelled` without running its handler;
 * 2. delayed jobs promoted and prioritised ones moved to the front, so they answer at once;
 * 3. one notice on the control channel, which aborts the handlers running anywhere;
 * 4. without cascade, a parent waiting for children lets go of them, so it answers now while
 *    they run on.
 * Parents waiting for children resume once the children have answered, and answer `cancelled`
 * with what they have.
 */
export async function cancelMessage(redis: RedisClient, finder: JobFinder, prefix: string, targetId: string, options: CancelOptions): Promise<CancelReport> {
  const found = await finder.find(targetId);
  if (!found) return { outcome: 'unknown', target: targetId };
  const state = await found.job.getState();
  if (FINISHED_STATES.has(state)) return { outcome: 'finished', target: targetId, tier: found.tier, state };

  const cascade = options.cascade ?? true;
  const target: TreeNode = { id: targetId, tier: found.tier, state };
  const nodes = cascade ? [target, ...(await unfinishedDescendants(redis, prefix, found.tier, targetId))] : [target];
  const mark = cancellationMessage(targetId, found.tier, options);
  await stopNodes(redis, finder, prefix, mark, nodes, options);
  const ids = nodes.map((node) => node.id);
  if (cascade) {
    // A parent adding children while the tree was walked: those it added before the next walk
    // are found there; those it adds after, it stops itself, for it finds its own mark in place.
    // A parent found late was marked late, so the tree is walked again until a walk finds
    // nothing new: only then has every parent's mark been in place before its last walk.
    const seen = new Set(ids);
    for (;;) {
      const late = (await unfinishedDescendants(redis, prefix, found.tier, targetId)).filter((node) => !seen.has(node.id));
      if (late.length === 0) break;
      await stopNodes(redis, finder, prefix, mark, late, options);
      for (const node of late) seen.add(node.id);
      ids.push(...late.map((node) => node.id));
    }
  }
  if (!cascade && state === 'waiting-children') await releaseChildren(finder, found.job, found.tier);
  return { outcome: 'cancelled', target: targetId, tier: found.tier, nodes: ids };
}

/** Marks, hurries and notifies: the three steps that stop a set of nodes. */
async function stopNodes(redis: RedisClient, finder: JobFinder, prefix: string, mark: CancellationMessage, nodes: readonly TreeNode[], options: CancelOptions): Promise<void> {
  const keys = controlKeys(prefix);
  const writer = options.writer ?? CLIENT;
  const pipeline = redis.multi();
  for (const node of nodes) {
    const nodeMark = signRecord({ ...mark, payload: { ...mark.payload, target_message_id: node.id } }, options.signer);
    pipeline.set(keys.cancel(writer, node.id), JSON.stringify(nodeMark), 'PX', options.markTtlMs);
  }
  cancellationsSent(pipeline, prefix, mark, nodes, writer === CLIENT ? AUDIT_CLIENT : mark.source_tier, mark.timestamp);
  await pipeline.exec();
  await Promise.all(nodes.map((node) => hurry(finder, node)));
  await publishAbort(
    redis,
    keys.channel,
    nodes.map((node) => node.id),
    options.reason,
    options.errorType,
  );
}

/** Tells every process to abort these running handlers, in notices the listeners accept (bounded ids and reason). */
async function publishAbort(redis: RedisClient, channel: string, ids: readonly string[], reason: string, errorType: string | undefined): Promise<void> {
  const shortReason = reason.length > MAX_NOTICE_REASON ? `${reason.slice(0, MAX_NOTICE_REASON - 1)}…` : reason;
  for (let start = 0; start < ids.length; start += MAX_NOTICE_IDS) {
    const notice: AbortNotice = { kind: 'cancel', ids: ids.slice(start, start + MAX_NOTICE_IDS), reason: shortReason, status: 'cancelled', ...(errorType ? { error_type: errorType } : {}) };
    await redis.spublish(channel, JSON.stringify(notice));
  }
}

function cancellationMessage(targetId: string, target: TierName, options: CancelOptions): CancellationMessage {
  return parseMessage({
    version: PROTOCOL_VERSION,
    id: `${targetId}.cancel`,
    timestamp: new Date(options.now ?? Date.now()).toISOString(),
    source_tier: options.source ?? 'PROGRESS_MONITOR',
    target_tier: target,
    correlation_id: targetId,
    payload: {
      target_message_id: targetId,
      reason: options.reason,
      cascade: options.cascade ?? true,
      ...(options.winner ? { winner: options.winner } : {}),
      ...(options.errorType ? { error_type: options.errorType } : {}),
    },
  }) as CancellationMessage;
}

/** The ids of a parent's children that BullMQ still counts as pending. */
export async function pendingChildIds(finder: JobFinder, parent: Job, childTier: TierName): Promise<string[]> {
  const queue = finder.queue(childTier);
  const { unprocessed = [] } = await parent.getDependencies();
  return unprocessed.filter((key) => key.startsWith(`${queue.qualifiedName}:`)).map((key) => key.slice(queue.qualifiedName.length + 1));
}

async function pendingChildren(finder: JobFinder, parent: Job, childTier: TierName): Promise<Job[]> {
  const queue = finder.queue(childTier);
  const ids = await pendingChildIds(finder, parent, childTier);
  const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
  return jobs.filter((job): job is Job => job !== undefined);
}

/** Gets a marked job picked up at once: a delayed retry now, a prioritised job ahead of the rest. */
async function hurry(finder: JobFinder, node: TreeNode): Promise<void> {
  if (node.state !== 'delayed' && node.state !== 'prioritized') return;
  try {
    const job = await finder.queue(node.tier).getJob(node.id);
    if (node.state === 'delayed') await job?.promote();
    else await job?.changePriority({ priority: 0 });
  } catch {
    // It moved on meanwhile (started or finished); its mark still stops it.
  }
}

/** Detaches a parent's pending children, so it resumes now; they run on, answering no one. */
export async function releaseChildren(finder: JobFinder, parent: Job, tier: TierName): Promise<void> {
  const below = tierBelow(tier);
  if (!below) return;
  for (const child of await pendingChildren(finder, parent, below)) {
    try {
      await child.removeChildDependency();
    } catch {
      // Already settled: nothing to detach.
    }
  }
}
