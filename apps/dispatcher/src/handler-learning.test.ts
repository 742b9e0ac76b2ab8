import { learningRecordsOf } from '@tierflow/core';
import { outcomePayloadSchema, type DelegationPayloadInput } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import { specialistHistoryKey } from '@tierflow/runtime/policy';
import { delegated, delegationTo, fakeContext, FakeBeads, reported, settle, type OutcomeReply } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { dispatcherHandler } from './handler.js';
import type { DispatcherOptionsInput } from './options.js';
import { historyValue } from './test-history.js';

const ID = 'r1.0-0.0-0';
const routing = { write: ['a', 'b'], '*': ['sim'] };

function setup(plan: Plan, options: DispatcherOptionsInput) {
  const beads = new FakeBeads('ROUTING_DISPATCHER');
  // a fails half its work, b nearly none; both with a long enough record to judge surprises by.
  beads.values.set(specialistHistoryKey('write', 'a'), historyValue(20, 20));
  beads.values.set(specialistHistoryKey('write', 'b'), historyValue(40, 0));
  const payload: DelegationPayloadInput = { task_type: 'decompose_and_solve', objective: 'write', task_data: { plan } };
  const assignment = delegationTo('ROUTING_DISPATCHER', ID, payload);
  return { beads, assignment, context: fakeContext(assignment, beads), handler: dispatcherHandler({ routing, routingSeed: 1, exploration: 0, ...options }) };
}

const one: Plan = { strategy: 'all_success', subtasks: [{ objective: 'write it', task_type: 'write' }] };
const ok: OutcomeReply = { status: 'success', summary: 'done', confidence: 0.9, resources_used: { specialist: 'b', usage: { tokens_in: 5, tokens_out: 7, cost_usd: 0.01, llm_calls: 1 } } };

describe('the Dispatcher routing by measured results', () => {
  it('learned: sends the subtask to the candidate with the better record, and says so in the delegation and on the audit trail', async () => {
    const { context, handler } = setup(one, { routingMode: 'learned' });
    const step = delegated(await handler.start(context));
    expect(step.children[0]).toMatchObject({ specialist_hint: 'b', routing: { mode: 'learned', chosen: 'b', reason: 'best_mean', fixed: 'a', learned: 'b' } });
    expect(step.decisions).toEqual([{ child: 0, detail: expect.stringMatching(/^learned: b \(best_mean\); fixed a; expected gain \+0\.\d{3}$/) as unknown, data: step.children[0]!.routing }]);
    expect(step.memo).toMatchObject({ subtasks: [{ specialist: 'b', alternates: ['a'], routing: { chosen: 'b' } }] });
  });

  it('shadow: routes as fixed, and records what learned would have chosen', async () => {
    const { context, handler } = setup(one, { routingMode: 'shadow' });
    const step = delegated(await handler.start(context));
    expect(step.children[0]).toMatchObject({ specialist_hint: 'a', routing: { mode: 'shadow', chosen: 'a', fixed: 'a', learned: 'b' } });
    expect((step.children[0]!.routing as { expected_gain: number }).expected_gain).toBeGreaterThan(0.3);
  });

  it('reports a learning record per leaf attempt, the re-routed one included, and flags what surprised against history', async () => {
    const { assignment, context, handler } = setup({ strategy: 'all_success', subtasks: [{ objective: 'write it', task_type: 'write', specialist_hint: 'b' }] }, {});
    const first = delegated(await handler.start(context));
    // b, which never fails, is unavailable: a surprise; the subtask goes to a.
    const unavailable: OutcomeReply = { status: 'failed', summary: 'gone', confidence: 0, error_type: 'specialist_unavailable', error_detail: 'b is not loaded', recoverable: true };
    const second = delegated(
      await handler.resume!(
        context,
        settle(assignment, 'ROUTING_DISPATCHER', first, 0, () => unavailable),
      ),
    );
    expect(second.children[0]).toMatchObject({ specialist_hint: 'a', routing: { mode: 'fixed', chosen: 'a', reason: 'reroute' } });
    expect(second.decisions).toEqual([{ child: 0, detail: 'fixed: a (reroute)', data: second.children[0]!.routing }]);

    const outcome = reported(
      await handler.resume!(
        context,
        settle(assignment, 'ROUTING_DISPATCHER', second, 1, () => ({ ...ok, resources_used: { specialist: 'a' } })),
      ),
    );
    const { records, dropped } = learningRecordsOf(outcomePayloadSchema.parse({ ...outcome, execution_time_ms: 1 }));
    expect(dropped).toBe(0);
    expect(records).toEqual([
      expect.objectContaining({
        task_type: 'write',
        specialist: 'b',
        status: 'failed',
        surprise: true,
        routing: { mode: 'fixed', reason: 'hint', fixed: 'b', learned: null, expected_gain: null, chosen: 'b' },
      }),
      expect.objectContaining({ task_type: 'write', specialist: 'a', status: 'success', confidence: 0.9, surprise: false, routing: expect.objectContaining({ reason: 'reroute' }) as unknown }),
    ]);
    expect(outcome).toMatchObject({ status: 'success', surprise_flag: true, surprise_reason: 'subtask 1 (b): failed where b succeeds 100 % of the time' });
  });

  it('carries a surprise its children flagged', async () => {
    const { assignment, context, handler } = setup(one, {});
    const first = delegated(await handler.start(context));
    const outcome = reported(
      await handler.resume!(
        context,
        settle(assignment, 'ROUTING_DISPATCHER', first, 0, () => ({ ...ok, resources_used: { specialist: 'a' }, surprise_flag: true, surprise_reason: 'odd answer' }) as OutcomeReply),
      ),
    );
    expect(outcome).toMatchObject({ surprise_flag: true, surprise_reason: 'subtask 1: odd answer' });
    const quiet = setup(one, {});
    const plain = reported(
      await quiet.handler.resume!(
        quiet.context,
        settle(quiet.assignment, 'ROUTING_DISPATCHER', delegated(await quiet.handler.start(quiet.context)), 0, () => ok),
      ),
    );
    expect(plain).toMatchObject({ surprise_flag: false, surprise_reason: null });
  });
});
