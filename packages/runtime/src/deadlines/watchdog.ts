import { messageIdSchema, tierBelow, type TierName, tierNameSchema, type TierSlug } from '@tierflow/protocol';
import type { Job } from 'bullmq';
import type { RedisClient } from '@tierflow/beads';
import { releaseChildren } from '../cancellation/cancel.js';
import type { TierCanceller } from '../cancellation/tier-canceller.js';
import type { ControlKeys } from '../redis/keys.js';
import { timeoutRecord } from '../cancellation/control-records.js';
import type { Signer } from '../security/signing-keys.js';
import { FINISHED_STATES, type JobFinder } from '../redis/job-finder.js';
import type { StepStore, StepState } from '../steps/step-store.js';
import { TIMEOUT_GRACE_MS } from './timing.js';
import { releaseFromForeignChildren } from '../redis/foreign-children.js';

export interface WatchdogJob {
  readonly parentId: string;
  readonly parentTier: TierName;
  readonly round: number;
}

/** When a round's watchdog must look next: the first child deadline plus grace, or the parent's own answer-by time. */
export function nextWatch(state: Pick<StepState, 'children' | 'answer_by'>, pending: ReadonlySet<string> | null): number | null {
  const times = state.children.filter((child) => child.deadline !== null && (pending === null || pending.has(child.id))).map((child) => child.deadline! + TIMEOUT_GRACE_MS);
  if (state.answer_by !== null) times.push(state.answer_by);
  return times.length === 0 ? null : Math.min(...times);
}

/** A round's entry in the due-watchdogs set: `round|tier|parent id` (ids hold no `|`). */
export function watchMember(watch: WatchdogJob): string {
  return `${watch.round}|${watch.parentTier}|${watch.parentId}`;
}

/** A member of the set as stored, or null for one of any other shape (which the sweeper drops). */
export function parseWatchMember(member: string): WatchdogJob | null {
  const [round, parentTier, ...rest] = member.split('|');
  const parentId = rest.join('|');
  const tier = tierNameSchema.safeParse(parentTier);
  if (!round || !tier.success || !messageIdSchema.safeParse(parentId).success || !/^\d{1,9}$/.test(round)) return null;
  return { round: Number(round), parentTier: tier.data, parentId };
}

export interface WatchdogDeps {
  readonly redis: RedisClient;
  readonly keys: ControlKeys;
  /** The parent tier whose watchdogs these are: it writes their timeout records and marks. */
  readonly party: TierSlug;
  readonly finder: JobFinder;
  readonly steps: StepStore;
  readonly markTtlMs: number;
  /** The parent tier's signer, when the deployment signs. */
  readonly signer: Signer | null;
  /** Cancels children in the parent tier's name. */
  readonly canceller: TierCanceller;
}

/** How soon to look again at a round whose parent is not parked (running a pass, or taken back after a crash). */
export const UNPARKED_RECHECK_MS = 1_000;

/**
 * A sender's watchdog. It acts only while the parent waits for this round's children:
 * - past the parent's own answer-by time, it stops every unfinished child and lets the parent
 *   resume, which answers `timeout` with what it has;
 * - else, for each child past its deadline plus grace, it records `timeout` for it, cancels it
 *   and detaches it, so the parent never waits for a child whose worker is gone or absent;
 * - and it answers when to look again: the next deadline still ahead, or null when done;
 * - a parent whose children have all finished but that is still parked waits only for jobs it did
 *   not send (planted by someone who can write the queues): it is moved on, without them.
 * A parent that is not parked just now (running a pass, or taken back from a worker that died)
 * is looked at again shortly: it may park again on the same round, and must not wait forever.
 * A parent whose step state cannot be read is let go, so it resumes and answers `failed`.
 */
export async function runWatchdog(deps: WatchdogDeps, watch: WatchdogJob, now: number): Promise<number | null> {
  const childTier = tierBelow(watch.parentTier);
  const parent = await deps.finder.queue(watch.parentTier).getJob(watch.parentId);
  if (!parent || !childTier) return null;
  const parentState = await parent.getState();
  if (FINISHED_STATES.has(parentState) || parentState === 'unknown') return null;
  const parked = parentState === 'waiting-children';
  const stored = await deps.steps.load(watch.parentId);
  if (stored === null) return null;
  if (!stored.ok) {
    if (!parked) return now + UNPARKED_RECHECK_MS;
    await releaseChildren(deps.finder, parent, watch.parentTier);
    return null;
  }
  const state = stored.value;
  if (state.round !== watch.round) return null;
  if (!parked) return Math.max(nextWatch(state, null) ?? now, now + UNPARKED_RECHECK_MS);

  const childQueue = deps.finder.queue(childTier);
  const children = await Promise.all(state.children.map(async (child) => ({ child, job: await childQueue.getJob(child.id) })));
  const unfinished: { child: StepState['children'][number]; job: Job | undefined }[] = [];
  for (const entry of children) {
    if (!entry.job || !FINISHED_STATES.has(await entry.job.getState())) unfinished.push(entry);
  }
  const { keys, party } = deps;
  // Every child it sent has finished, yet it is parked: what holds it is jobs it did not send.
  if (unfinished.length === 0) {
    const queueKey = parent.queueQualifiedName;
    await releaseFromForeignChildren(deps.redis, { key: `${queueKey}:${watch.parentId}`, ownChildren: keys.children(party, watch.parentId), queueKey, id: watch.parentId }, now);
    return null;
  }

  if (state.answer_by !== null && now >= state.answer_by) {
    await deps.redis.set(keys.timeout(party, watch.parentId), timeoutRecord(watch.parentId, now, deps.signer), 'PX', deps.markTtlMs);
    await deps.canceller.cancelAll(
      unfinished.map((entry) => entry.child.id),
      `${watch.parentId} ran out of time`,
    );
    await releaseChildren(deps.finder, parent, watch.parentTier);
    return null;
  }
  const overdue = unfinished.filter((entry) => entry.child.deadline !== null && now >= entry.child.deadline + TIMEOUT_GRACE_MS);
  if (overdue.length > 0) {
    const pipeline = deps.redis.multi();
    for (const { child } of overdue) pipeline.set(keys.timeout(party, child.id), timeoutRecord(child.id, now, deps.signer), 'PX', deps.markTtlMs);
    await pipeline.exec();
    await deps.canceller.cancelAll(
      overdue.map((entry) => entry.child.id),
      'no outcome by its deadline',
    );
    for (const { job } of overdue) await job?.removeChildDependency().catch(() => false);
  }
  const still = new Set(unfinished.filter((entry) => !overdue.includes(entry)).map((entry) => entry.child.id));
  const next = still.size > 0 ? nextWatch(state, still) : null;
  return next === null ? null : Math.max(next, now + 10);
}
