import { addToSums, revisionIncrements } from '@tierflow/core';
import { revisionHistoryKey, UNMETERED } from '@tierflow/runtime/policy';
import { FakeBeads, FIXED_NOW, delegated, fakeContext, reported, rootAssignment, settle, type OutcomeReply } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { monitorHandler } from './handler.js';

// Reset or stop (docs/protocol.md#revisions): the Monitor weighs the record of revisions of the
// run's task type and the budget left before it resets a recoverable failure.
const DAY = 86_400_000;
const recoverable: OutcomeReply = {
  status: 'failed',
  summary: 'all 2 subtasks failed',
  confidence: 0,
  error_type: 'all_failed',
  error_detail: 'both broke',
  recoverable: true,
  resources_used: { revisions: 1, usage: { tokens_in: 0, tokens_out: 0, cost_usd: 0.3, llm_calls: 4 } },
};

function run(beads: FakeBeads) {
  const assignment = rootAssignment('r1', { objective: 'a report', task_data: { task_type: 'report' } });
  return { assignment, context: fakeContext(assignment, beads), handler: monitorHandler({ loadedLorasRefreshMs: 0 }) };
}

describe('the Monitor before a reset', () => {
  it('resets when nothing speaks against it, counting the revisions of the attempt it resets', async () => {
    const { assignment, context, handler } = run(new FakeBeads('PROGRESS_MONITOR'));
    const first = delegated(await handler.start(context));
    const second = delegated(
      await handler.resume!(
        context,
        settle(assignment, 'PROGRESS_MONITOR', first, 0, () => recoverable),
      ),
    );
    expect(second.memo).toMatchObject({ resets: 1, revisions: 1 });
  });

  it('does not reset when revisions of the task type rarely succeed, and says why in the root’s outcome', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    let sums = null;
    for (let i = 0; i < 5; i++) sums = addToSums(sums, revisionIncrements(2, false), FIXED_NOW, DAY);
    beads.values.set(revisionHistoryKey('report'), sums);
    const { assignment, context, handler } = run(beads);
    const first = delegated(await handler.start(context));
    const outcome = reported(
      await handler.resume!(
        context,
        settle(assignment, 'PROGRESS_MONITOR', first, 0, () => recoverable),
      ),
    );
    const note = 'not reset: revisions of this task type rarely succeed: 0% of 10 recent revisions ended in success, under 10%';
    expect(outcome).toMatchObject({ status: 'failed', summary: `all 2 subtasks failed (${note})`, error_detail: `both broke; ${note}`, resources_used: { resets: 0 } });
  });

  it('does not reset when the budget left cannot pay for another attempt like the last', async () => {
    const { assignment, context, handler } = run(new FakeBeads('PROGRESS_MONITOR'));
    const usage = { ...UNMETERED, standing: () => Promise.resolve({ limits: { max_cost_usd: 0.5 }, committed: { tokens_in: 0, tokens_out: 0, cost_usd: 0.3, llm_calls: 4 } }) };
    const metered = { ...context, usage };
    const first = delegated(await handler.start(metered));
    const outcome = reported(
      await handler.resume!(
        metered,
        settle(assignment, 'PROGRESS_MONITOR', first, 0, () => recoverable),
      ),
    );
    expect(outcome.error_detail).toBe('both broke; not reset: the budget left ($0.2000) cannot pay for another round (about $0.3000)');
  });
});

describe('the Monitor’s record of revisions', () => {
  const revisionAdds = (beads: FakeBeads) => beads.adds.filter((add) => add.key.startsWith('history/revisions/'));

  it('adds the revisions of every attempt, and whether the run then succeeded, once, when it evaluates', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    const { assignment, context, handler } = run(beads);
    const first = delegated(await handler.start(context));
    const second = delegated(
      await handler.resume!(
        context,
        settle(assignment, 'PROGRESS_MONITOR', first, 0, () => recoverable),
      ),
    );
    expect(revisionAdds(beads)).toEqual([]);
    const success: OutcomeReply = { status: 'success', summary: 'done', confidence: 0.9, resources_used: { revisions: 2 } };
    await handler.resume!(
      context,
      settle(assignment, 'PROGRESS_MONITOR', second, 1, () => success),
    );
    expect(revisionAdds(beads)).toEqual([{ key: 'history/revisions/report', increments: { revisions: 3, succeeded: 1 }, options: { halfLifeMs: DAY, now: FIXED_NOW } }]);
  });

  it('adds nothing for a run whose Architect never revised', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    const { assignment, context, handler } = run(beads);
    const first = delegated(await handler.start(context));
    await handler.resume!(
      context,
      settle(assignment, 'PROGRESS_MONITOR', first, 0, () => ({ status: 'success', summary: 'done', confidence: 0.9, resources_used: { revisions: 0 } })),
    );
    expect(revisionAdds(beads)).toEqual([]);
  });

  it('counts a run stopped before a reset as revisions that did not succeed', async () => {
    const beads = new FakeBeads('PROGRESS_MONITOR');
    let sums = null;
    for (let i = 0; i < 5; i++) sums = addToSums(sums, revisionIncrements(1, false), FIXED_NOW, DAY);
    beads.values.set(revisionHistoryKey('report'), sums);
    const { assignment, context, handler } = run(beads);
    const first = delegated(await handler.start(context));
    await handler.resume!(
      context,
      settle(assignment, 'PROGRESS_MONITOR', first, 0, () => recoverable),
    );
    expect(revisionAdds(beads).map((add) => add.increments)).toEqual([{ revisions: 1, succeeded: 0 }]);
  });
});
