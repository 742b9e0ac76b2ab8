import { tierBelow, type TierName } from '@tierflow/protocol';
import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { cancelMessage, releaseChildren } from './cancel.js';
import { controlKeys } from './control-keys.js';
import type { JobFinder } from './job-finder.js';
import type { StepStore, StepState } from './step-store.js';
import { TIMEOUT_GRACE_MS } from './timing.js';

/** The queue of delayed watchdog jobs; every tier worker process also runs a worker on it. */
export const CONTROL_QUEUE = 'control';

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

export function watchdogId(watch: WatchdogJob, at: number): string {
  return `wd-${watch.parentId}-${watch.round}-${at}`;
}

export async function scheduleWatchdog(control: Queue, watch: WatchdogJob, at: number, now: number): Promise<void> {
  await control.add('watchdog', watch, {
    jobId: watchdogId(watch, at),
    delay: Math.max(0, at - now),
    removeOnComplete: true,
    removeOnFail: { age: 3600 },
  });
}

export interface WatchdogDeps {
  readonly redis: Redis;
  readonly prefix: string;
  readonly finder: JobFinder;
  readonly steps: StepStore;
  readonly control: Queue;
  readonly markTtlMs: number;
}

const FINISHED = new Set(['completed', 'failed']);

/**
 * A sender's watchdog. It acts only while the parent still waits for this round's children:
 * - past the parent's own answer-by time, it stops every unfinished child and lets the parent
 *   resume, which answers `timeout` with what it has;
 * - else, for each child past its deadline plus grace, it records `timeout` for it, cancels it
 *   and detaches it, so the parent never waits for a child whose worker is gone or absent;
 * - and it looks again at the next deadline still ahead.
 */
export async function runWatchdog(deps: WatchdogDeps, watch: WatchdogJob, now: number): Promise<void> {
  const parent = await deps.finder.queue(watch.parentTier).getJob(watch.parentId);
  if (!parent || (await parent.getState()) !== 'waiting-children') return;
  const state = await deps.steps.load(watch.parentId);
  const childTier = tierBelow(watch.parentTier);
  if (!state || state.round !== watch.round || !childTier) return;

  const childQueue = deps.finder.queue(childTier);
  const children = await Promise.all(state.children.map(async (child) => ({ child, job: await childQueue.getJob(child.id) })));
  const unfinished: { child: StepState['children'][number]; job: Job | undefined }[] = [];
  for (const entry of children) {
    if (!entry.job || !FINISHED.has(await entry.job.getState())) unfinished.push(entry);
  }
  if (unfinished.length === 0) return;
  const keys = controlKeys(deps.prefix);

  if (state.answer_by !== null && now >= state.answer_by) {
    await deps.redis.set(keys.timeout(watch.parentId), String(now), 'PX', deps.markTtlMs);
    await stopChildren(deps, unfinished.map((entry) => entry.child.id), watch.parentTier, `${watch.parentId} ran out of time`);
    await releaseChildren(deps.finder, parent, watch.parentTier);
    return;
  }
  const overdue = unfinished.filter((entry) => entry.child.deadline !== null && now >= entry.child.deadline + TIMEOUT_GRACE_MS);
  if (overdue.length > 0) {
    const pipeline = deps.redis.multi();
    for (const { child } of overdue) pipeline.set(keys.timeout(child.id), String(now), 'PX', deps.markTtlMs);
    await pipeline.exec();
    await stopChildren(deps, overdue.map((entry) => entry.child.id), watch.parentTier, 'no outcome by its deadline');
    for (const { job } of overdue) await job?.removeChildDependency().catch(() => false);
  }
  const still = new Set(unfinished.filter((entry) => !overdue.includes(entry)).map((entry) => entry.child.id));
  const next = still.size > 0 ? nextWatch(state, still) : null;
  if (next !== null) await scheduleWatchdog(deps.control, watch, Math.max(next, now + 10), now);
}

async function stopChildren(deps: WatchdogDeps, ids: readonly string[], source: TierName, reason: string): Promise<void> {
  for (const id of ids) {
    await cancelMessage(deps.redis, deps.finder, deps.prefix, id, { reason, cascade: true, source, markTtlMs: deps.markTtlMs });
  }
}
