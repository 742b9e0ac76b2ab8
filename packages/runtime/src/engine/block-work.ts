import type { UnblockNote } from '@tierflow/protocol';
import { inFlightTtlMs } from '../config/retention.js';
import { outcomeMessageId } from '../messages/ids.js';
import type { OutcomeDraft, SettledChild } from '../policy/handler.js';
import { FencedBatch } from '../redis/fenced-batch.js';
import type { Engine, Pass } from './pass.js';
import type { StepState } from '../steps/step-store.js';
import { usageBelow } from './usage-rollup.js';
import { wakeJob } from './wake-job.js';
import { blockersBehind, completeUnblocks } from '../questions/blocked.js';
import type { BlockedWait } from '../questions/awaiting.js';
import { readUnblocks, type BlockedRun } from '../questions/blocked-records.js';

/** What reads a run's unblocks: Redis, where they are kept, and the deployment's signing settings to check them. */
type UnblockReads = Pick<Engine, 'redis' | 'keys' | 'runtime' | 'log'>;

/**
 * Holds a round that came back blocked until its blockers are lifted (docs/protocol.md#blocked-work),
 * as askPeople does for questions: one fenced MULTI keeps the wait in the job's step state (with the
 * round's usage, counted now), publishes the blocked view for clients, and records the blockers on
 * the audit trail; the `blocked` webhook goes out; then the job waits in BullMQ's delayed set. An
 * unblock wakes it sooner (TierflowClient.unblock); one that landed before the job was delayed
 * could not, so the job looks once more after.
 */
export async function blockWork(
  engine: UnblockReads & Pick<Engine, 'tier' | 'party' | 'clock' | 'steps' | 'audit' | 'writer' | 'notices'>,
  pass: Pass,
  state: StepState,
  draft: OutcomeDraft,
  received: readonly SettledChild[],
): Promise<void> {
  const { job, assignment } = pass;
  const now = engine.clock.now();
  const blockers = blockersBehind(draft, received, { tier: engine.tier, outcomeId: outcomeMessageId(assignment.id) });
  // The blockers are kept once, beside the draft: the outcome sent when the wait runs out gets them back.
  const { blockers: _kept, ...held } = draft;
  const awaiting: BlockedWait = { kind: 'blocked', asked_at: now, until: now + engine.runtime.blockedWaitMs, blockers, draft: { ...held, status: 'blocked' } };
  const { watchdog: _settled, ...rest } = state;
  const next: StepState = { ...rest, awaiting, usage: usageBelow(state, received) };
  const view: BlockedRun = { root_id: assignment.rootId, since: now, until: awaiting.until, blockers };
  const { keys, party } = engine;
  const batch = new FencedBatch();
  engine.steps.write(batch, job.id!, next);
  batch.set(keys.blocked(assignment.rootId), JSON.stringify(view), 'PX', inFlightTtlMs(engine.runtime));
  engine.audit.outcomesReceived(batch, assignment, received);
  engine.audit.blockersReported(batch, assignment.rootId, blockers);
  if (state.watchdog) batch.zrem(keys.watchdogs(party), state.watchdog);
  await engine.writer.commit(batch, pass.lock);
  engine.notices?.blocked(assignment.rootId, {
    key: String(now),
    summary: draft.summary,
    detail: {
      reason: blockers.map((blocker) => blocker.blocker).join(' | '),
      blocked_on: blockers[0]!.blocker,
      blockers,
      since: new Date(now).toISOString(),
      until: new Date(awaiting.until).toISOString(),
    },
  });
  pass.span.addEvent('waiting for unblock', { blockers: blockers.length, until: new Date(awaiting.until).toISOString() });
  engine.log.info('waiting for blocked work to be unblocked', { root: assignment.rootId, blockers: blockers.length });
  await waitForUnblock(engine, pass, awaiting);
}

export type UnblockRead = { readonly kind: 'complete'; readonly notes: readonly UnblockNote[] } | { readonly kind: 'expired' } | { readonly kind: 'pending' };

/** A blocked job, woken: the notes if every blocker is lifted, else whether its wait is over; woken early, it waits on. */
export async function readBlockedWait(engine: UnblockReads & Pick<Engine, 'clock'>, pass: Pass, awaiting: BlockedWait): Promise<UnblockRead> {
  const notes = await unblocksFor(engine, pass.assignment.rootId, awaiting);
  if (notes) {
    pass.span.addEvent('unblocked', { blockers: notes.length });
    return { kind: 'complete', notes };
  }
  if (engine.clock.now() >= awaiting.until) return { kind: 'expired' };
  await waitForUnblock(engine, pass, awaiting);
  return { kind: 'pending' };
}

async function waitForUnblock(engine: UnblockReads, pass: Pass, awaiting: BlockedWait): Promise<void> {
  await pass.job.moveToDelayed(awaiting.until, pass.lock.token);
  if (await unblocksFor(engine, pass.assignment.rootId, awaiting)) await wakeJob(pass.job);
}

async function unblocksFor(engine: UnblockReads, rootId: string, awaiting: BlockedWait): Promise<UnblockNote[] | null> {
  const read = readUnblocks(await engine.redis.hgetall(engine.keys.unblocks(rootId)), engine.runtime.signing, awaiting.asked_at);
  for (const { field, reason } of read.ignored) engine.log.warn('ignored an unblock', { root: rootId, blocker: field, reason });
  return completeUnblocks(awaiting, read.notes);
}
