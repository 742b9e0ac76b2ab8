import { addToSums, revisionIncrements } from '@tierflow/core';
import { outcomePayloadSchema } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import { revisionHistoryKey, UNMETERED } from '@tierflow/runtime/policy';
import { FakeBeads, FIXED_NOW, delegated, delegationTo, fakeContext, reported, settle, type OutcomeReply } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { dispatcherReply } from './dispatcher-reply.js';
import { architectHandler } from './handler.js';

// Revise or stop (docs/protocol.md#revisions): the Architect weighs the record of revisions of the
// run's task type and the budget left before it sends a round again.
const plan: Plan = { strategy: 'all_success', subtasks: [{ objective: 'a' }, { objective: 'b' }, { objective: 'c' }] };
const DAY = 86_400_000;

function setup(history: { revisions: number; succeeded: number }[] = [], maxRevisions = 1) {
  const beads = new FakeBeads('ABSTRACT_ARCHITECT');
  // Earlier runs of task type "report", as the Monitor folds them.
  let sums = null;
  for (const run of history) sums = addToSums(sums, revisionIncrements(run.revisions, run.succeeded > 0), FIXED_NOW - 1_000, DAY);
  if (sums) beads.values.set(revisionHistoryKey('report'), sums);
  const assignment = delegationTo('ABSTRACT_ARCHITECT', 'r1.0-0', { task_type: 'solve', objective: 'a report', task_data: { plan, task_type: 'report' } });
  return { assignment, context: fakeContext(assignment, beads), handler: architectHandler({ maxRevisions }) };
}

/** Two of three failed: a revision is called for. Its round used 10 calls, 4,000 tokens and $0.04. */
const shortfall = (): OutcomeReply => ({
  ...dispatcherReply('all_success', [
    ['failed', 0.2],
    ['success', 0.9],
    ['failed', 0.1],
  ]),
  resources_used: { parallel_tasks: 3, rounds: 1, usage: { tokens_in: 3_000, tokens_out: 1_000, cost_usd: 0.04, llm_calls: 10 } },
});

describe('the Architect before a revision', () => {
  it('revises when revisions of the task type have succeeded often enough', async () => {
    const { assignment, context, handler } = setup(Array.from({ length: 6 }, (_, i) => ({ revisions: 1, succeeded: i % 2 })));
    const first = delegated(await handler.start(context));
    const step = await handler.resume!(context, settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, shortfall));
    expect(step.kind).toBe('delegate');
  });

  it('stops when they rarely succeed, saying why, and asks nobody above to try again', async () => {
    const { assignment, context, handler } = setup(Array.from({ length: 6 }, () => ({ revisions: 1, succeeded: 0 })));
    const first = delegated(await handler.start(context));
    const outcome = outcomePayloadSchema.parse({ ...reported(await handler.resume!(context, settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, shortfall))), execution_time_ms: 1 });
    // A second old, the six revisions on record have decayed a little.
    const reason = 'not revised: revisions of this task type rarely succeed: 0% of 6.0 recent revisions ended in success, under 10%';
    expect(outcome).toMatchObject({ status: 'partial', error_type: 'majority_failed', recoverable: false, resources_used: { revisions: 0 } });
    expect(outcome.summary).toBe(`1/3 subtasks succeeded (all_success); majority failed: revise the strategy (${reason})`);
    expect(outcome.error_detail?.endsWith(`; ${reason}`)).toBe(true);
  });

  it('stops when the budget left cannot pay for another round like the last', async () => {
    const { assignment, context, handler } = setup();
    const usage = { ...UNMETERED, standing: () => Promise.resolve({ limits: { max_tokens: 6_000 }, committed: { tokens_in: 3_000, tokens_out: 1_000, cost_usd: 0.04, llm_calls: 10 } }) };
    const metered = { ...context, usage };
    const first = delegated(await handler.start(metered));
    const outcome = reported(await handler.resume!(metered, settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, shortfall)));
    expect(outcome).toMatchObject({ status: 'partial', recoverable: false });
    expect(outcome.error_detail).toContain('not revised: the budget left (2000 tokens) cannot pay for another round (about 4000 tokens)');
  });

  it('after a revision, a stop reports the whole objective re-aggregated, with the reason', async () => {
    const { assignment, context, handler: architect } = setup([], 2);
    const first = delegated(await architect.start(context));
    const second = delegated(await architect.resume!(context, settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, shortfall)));
    // The budget is spent by now.
    const spent = { ...context, usage: { ...UNMETERED, standing: () => Promise.resolve({ limits: { max_llm_calls: 12 }, committed: { tokens_in: 0, tokens_out: 0, cost_usd: 0, llm_calls: 12 } }) } };
    const round1 = settle(assignment, 'ABSTRACT_ARCHITECT', second, 1, () => ({
      ...dispatcherReply(
        'all_success',
        [
          ['failed', 0.2],
          ['failed', 0.1],
        ],
        'd.1',
      ),
      resources_used: { usage: { tokens_in: 0, tokens_out: 0, cost_usd: 0, llm_calls: 2 } },
    }));
    const outcome = reported(await architect.resume!(spent, round1));
    expect(outcome).toMatchObject({ status: 'partial', error_type: 'majority_failed', recoverable: false, resources_used: { revisions: 1 } });
    expect(outcome.summary).toBe(
      '1/3 subtasks succeeded (all_success); majority failed: revise the strategy (after 1 revision) (not revised: the budget left (0 model calls) cannot pay for another round (about 2 model calls))',
    );
  });
});
