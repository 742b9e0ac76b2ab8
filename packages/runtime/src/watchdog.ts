import { tierBelow, type TierName } from '@tierflow/protocol';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { cancelMessage, releaseChildren } from './cancel.js';
import { controlKeys } from './control-keys.js';
import { timeoutRecord } from './control-records.js';
import type { SigningConfig } from './signing-keys.js';
import type { JobFinder } from './job-finder.js';
import type { StepStore, StepState } from './step-store.js';
import { TIMEOUT_GRACE_MS } from './timing.js';

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

export function parseWatchMember(member: string): WatchdogJob | null {
  const [round, parentTier, ...rest] = member.split('|');
  const parentId = rest.join('|');
  if (!round || !parentTier || !parentId || !/^\d+$/.test(round)) return null;
  return { round: Number(round), parentTier: parentTier as TierName, parentId };
}

export interface WatchdogDeps {
  readonly redis: Redis;
  readonly prefix: string;
  readonly finder: JobFinder;
  readonly steps: StepStore;
  readonly markTtlMs: number;
  readonly signing: SigningConfig | null;
}

const FINISHED = new Set(['completed', 'failed']);

/**
 * A sender's watchdog. It acts only while the parent still waits for this round's children:
 * - past the parent's own answer-by time, it stops every unfinished child and lets the parent
 *   resume, which answers `timeout` with what it has;
 * - else, for each child past its deadline plus grace, it records `timeout` for it, cancels it
 *   and detaches it, so the parent never waits for a child whose worker is gone or absent;
 * - and it answers when to look again: the next deadline still ahead, or null when done.
 */
export async function runWatchdog(deps: WatchdogDeps, watch: WatchdogJob, now: number): Promise<number | null> {
  const parent = await deps.finder.queue(watch.parentTier).getJob(watch.parentId);
  if (!parent || (await parent.getState()) !== 'waiting-children') return null;
  const state = await deps.steps.load(watch.parentId);
  const childTier = tierBelow(watch.parentTier);
  if (!state || state.round !== watch.round || !childTier) return null;

  const childQueue = deps.finder.queue(childTier);
  const children = await Promise.all(state.children.map(async (child) => ({ child, job: await childQueue.getJob(child.id) })));
  const unfinished: { child: StepState['children'][number]; job: Job | undefined }[] = [];
  for (const entry of children) {
    if (!entry.job || !FINISHED.has(await entry.job.getState())) unfinished.push(entry);
  }
  if (unfinished.length === 0) return null;
  const keys = controlKeys(deps.prefix);

  if (state.answer_by !== null && now >= state.answer_by) {
    await deps.redis.set(keys.timeout(watch.parentId), timeoutRecord(watch.parentId, now, deps.signing), 'PX', deps.markTtlMs);
    await stopChildren(deps, unfinished.map((entry) => entry.child.id), watch.parentTier, `${watch.parentId} ran out of time`);
    await releaseChildren(deps.finder, parent, watch.parentTier);
    return null;
  }
  const overdue = unfinished.filter((entry) => entry.child.deadline !== null && now >= entry.child.deadline + TIMEOUT_GRACE_MS);
  if (overdue.length > 0) {
    const pipeline = deps.redis.multi();
    for (const { child } of overdue) pipeline.set(keys.timeout(child.id), timeoutRecord(child.id, now, deps.signing), 'PX', deps.markTtlMs);
    await pipeline.exec();
    await stopChildren(deps, overdue.map((entry) => entry.child.id), watch.parentTier, 'no outcome by its deadline');
    for (const { job } of overdue) await job?.removeChildDependency().catch(() => false);
  }
  const still = new Set(unfinished.filter((entry) => !overdue.includes(entry)).map((entry) => entry.child.id));
  const next = still.size > 0 ? nextWatch(state, still) : null;
  return next === null ? null : Math.max(next, now + 10);
}

async function stopChildren(deps: WatchdogDeps, ids: readonly string[], source: TierName, reason: string): Promise<void> {
  for (const id of ids) {
    await cancelMessage(deps.redis, deps.finder, deps.prefix, id, { reason, cascade: true, source, markTtlMs: deps.markTtlMs, signing: deps.signing });
  }
}
