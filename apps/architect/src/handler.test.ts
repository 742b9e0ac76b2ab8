import { learningRecordsOf } from '@tierflow/core';
import { outcomePayloadSchema, type DelegationPayloadInput } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import type { PlanRequest, Planner } from '@tierflow/runtime/policy';
import { describe, expect, it } from 'vitest';
import { dispatcherReply } from './dispatcher-reply.js';
import { FakeBeads, delegationTo, fakeContext, settle, delegated, reported, type OutcomeReply } from '@tierflow/runtime/testing';
import { architectHandler } from './handler.js';
import { DEFAULT_DISPATCHER_TIMEOUT_MS, type ArchitectOptionsInput } from './options.js';

const ID = 'r1.0-0';

const plan: Plan = {
  strategy: 'all_success',
  subtasks: [{ objective: 'write code', task_type: 'execute_code' }, { objective: 'write tests', task_type: 'test' }, { objective: 'review' }],
};

function setup(taskData: DelegationPayloadInput['task_data'] = { plan, language: 'python' }, options: ArchitectOptionsInput = {}) {
  const beads = new FakeBeads('ABSTRACT_ARCHITECT');
  const assignment = delegationTo('ABSTRACT_ARCHITECT', ID, {
    task_type: 'solve',
    objective: 'binary search',
    constraints: ['Must handle empty arrays'],
    priority: 1,
    task_data: taskData,
  });
  return { beads, assignment, context: fakeContext(assignment, beads), handler: architectHandler(options) };
}

describe('architectHandler.start', () => {
  it('records the objective and constraints in one write and delegates once to the Dispatcher', async () => {
    const { beads, context, handler } = setup();
    const step = delegated(await handler.start(context));
    expect(step.strategy).toBe('all_success');
    expect(step.children).toEqual([
      {
        task_type: 'decompose_and_solve',
        objective: 'binary search',
        constraints: ['Must handle empty arrays'],
        priority: 1,
        timeout_ms: DEFAULT_DISPATCHER_TIMEOUT_MS,
        context_refs: ['beads:task/r1/current-objective', 'beads:task/r1/constraints'],
        task_data: { plan, language: 'python' },
      },
    ]);
    expect(step.memo).toEqual({ revisions: 0, plan, delegated: [1, 2, 3], kept: [], kept_artifacts: [], outer: [], learning: [], learning_dropped: 0, surprises: [] });
    expect(beads.writes).toEqual([
      [
        { key: 'task/r1/current-objective', value: { objective: 'binary search', task_type: 'solve' } },
        { key: 'task/r1/constraints', value: ['Must handle empty arrays'] },
      ],
    ]);
  });

  it('refuses an invalid plan before delegating or writing', async () => {
    const { beads, context, handler } = setup({ plan: { strategy: 'all_success' } });
    await expect(handler.start(context)).rejects.toMatchObject({ code: 'invalid_plan' });
    expect(beads.writes).toEqual([]);
  });

  it('asks its planner for a plan when the objective has none, after recording the context it may read', async () => {
    const requests: PlanRequest[] = [];
    const planner: Planner = async (request) => {
      requests.push(request);
      expect(await request.beads.get('task/r1/current-objective')).toEqual({ objective: 'binary search', task_type: 'solve' });
      return plan;
    };
    const { context, handler } = setup({ language: 'python' }, { planner });
    const step = delegated(await handler.start(context));
    expect(requests).toMatchObject([{ objective: 'binary search', taskType: 'solve', constraints: ['Must handle empty arrays'], taskData: { language: 'python' } }]);
    expect(step.children[0]?.task_data).toEqual({ language: 'python', plan });
    expect(step.memo).toMatchObject({ plan, delegated: [1, 2, 3] });
  });

  it('keeps an explicit plan and never asks the planner', async () => {
    const planner: Planner = () => Promise.reject(new Error('not to be called'));
    const { context, handler } = setup(undefined, { planner });
    const step = delegated(await handler.start(context));
    expect(step.children[0]?.task_data).toEqual({ plan, language: 'python' });
  });

  it('fails with invalid_plan when the planner returns something that is not a plan, naming the problem', async () => {
    const { context, handler } = setup({}, { planner: () => Promise.resolve({ strategy: 'all_success', subtasks: [] }) });
    await expect(handler.start(context)).rejects.toMatchObject({ code: 'invalid_plan', message: expect.stringContaining('$plan.subtasks') as unknown });
  });
});

describe('architectHandler.resume', () => {
  it('majority_failed: one revision of only the failed subtasks, same strategy', async () => {
    const { assignment, context, handler } = setup();
    const first = delegated(await handler.start(context));
    const reply = dispatcherReply('all_success', [
      ['failed', 0.2],
      ['success', 0.9],
      ['failed', 0.1],
    ]);
    const second = delegated(
      await handler.resume!(
        context,
        settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, () => reply),
      ),
    );
    expect(second.children).toHaveLength(1);
    // Each goes to another specialist than the one that failed it.
    expect(second.children[0]?.task_data).toEqual({
      language: 'python',
      plan: {
        strategy: 'all_success',
        subtasks: [
          { ...plan.subtasks[0], avoid_specialists: ['s1'] },
          { ...plan.subtasks[2], avoid_specialists: ['s3'] },
        ],
      },
    });
    expect(second.memo).toMatchObject({
      revisions: 1,
      delegated: [1, 3],
      kept: [{ message_id: 'd.0-1', specialist: 's2', status: 'success', confidence: 0.9, subtask_index: 2 }],
      kept_artifacts: [{ artifact_type: 'code', inline_content: 'by d.0-1' }],
    });
  });

  it('after maxRevisions: reports, re-aggregated over the whole objective', async () => {
    const { beads, assignment, context, handler } = setup();
    const first = delegated(await handler.start(context));
    const round0 = settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, () =>
      dispatcherReply('all_success', [
        ['failed', 0.2],
        ['success', 0.9],
        ['failed', 0.1],
      ]),
    );
    const second = delegated(await handler.resume!(context, round0));
    const round1 = settle(assignment, 'ABSTRACT_ARCHITECT', second, 1, () =>
      dispatcherReply(
        'all_success',
        [
          ['failed', 0.2],
          ['failed', 0.1],
        ],
        'd.1',
      ),
    );
    const outcome = reported(await handler.resume!(context, round1));
    expect(outcome).toMatchObject({ status: 'partial', error_type: 'majority_failed', recoverable: true, resources_used: { revisions: 1 } });
    expect(beads.writes.at(-1)).toEqual([{ key: 'task/r1/progress-summary', value: { status: 'partial', summary: outcome.summary, revisions: 1 } }]);
  });

  it('carries every round’s learning records and surprise up through a revision', async () => {
    const { assignment, context, handler } = setup();
    const record = (specialist: string, status: string) => ({
      task_type: 'write',
      specialist,
      model: null,
      status,
      confidence: 0.7,
      latency_ms: 5,
      tokens_in: 0,
      tokens_out: 0,
      cost_usd: 0,
      surprise: false,
      routing: null,
    });
    const withLearning = (reply: OutcomeReply, learning: unknown[], surprise: string | null): OutcomeReply => ({
      ...reply,
      ...(surprise ? { surprise_flag: true, surprise_reason: surprise } : {}),
      artifacts: reply.artifacts!.map((artifact, i) => (i === 0 ? { ...artifact, metadata: { ...artifact.metadata, learning } } : artifact)),
    });
    const first = delegated(await handler.start(context));
    const round0 = settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, () =>
      withLearning(
        dispatcherReply('all_success', [
          ['failed', 0.2],
          ['success', 0.9],
          ['failed', 0.1],
        ]),
        [record('a', 'failed'), record('b', 'success'), record('a', 'failed')],
        'subtask 1 (a): failed where a succeeds 100 % of the time',
      ),
    );
    const second = delegated(await handler.resume!(context, round0));
    const round1 = settle(assignment, 'ABSTRACT_ARCHITECT', second, 1, () =>
      withLearning(
        dispatcherReply(
          'all_success',
          [
            ['success', 0.8],
            ['success', 0.7],
          ],
          'd.1',
        ),
        [record('b', 'success'), record('c', 'success')],
        null,
      ),
    );
    const outcome = outcomePayloadSchema.parse({ ...reported(await handler.resume!(context, round1)), execution_time_ms: 3 });
    expect(learningRecordsOf(outcome).records.map((entry) => `${entry.specialist} ${entry.status}`)).toEqual(['a failed', 'b success', 'a failed', 'b success', 'c success']);
    expect(outcome).toMatchObject({ status: 'success', surprise_flag: true, surprise_reason: 'subtask 1 (a): failed where a succeeds 100 % of the time' });
  });

  it('a revision that succeeds makes the whole objective a success', async () => {
    const { assignment, context, handler } = setup();
    const first = delegated(await handler.start(context));
    const round0 = settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, () =>
      dispatcherReply('all_success', [
        ['failed', 0.2],
        ['success', 0.9],
        ['failed', 0.1],
      ]),
    );
    const second = delegated(await handler.resume!(context, round0));
    const round1 = settle(assignment, 'ABSTRACT_ARCHITECT', second, 1, () =>
      dispatcherReply(
        'all_success',
        [
          ['success', 0.8],
          ['success', 0.7],
        ],
        'd.1',
      ),
    );
    const outcome = reported(await handler.resume!(context, round1));
    const parsed = outcomePayloadSchema.parse({ ...outcome, execution_time_ms: 3 });
    expect(parsed).toMatchObject({ status: 'success', error_type: null, error_detail: null, recoverable: null, resources_used: { revisions: 1 } });
    expect(parsed.confidence).toBeCloseTo(0.8, 10);
    expect(parsed.artifacts.map((artifact) => artifact.inline_content)).toEqual([JSON.stringify({ strategy: 'all_success', succeeded: 3, failed: 0 }), 'by d.0-1', 'by d.1-0', 'by d.1-1']);
  });

  it('passes a clarification up unchanged, never revising', async () => {
    const { beads, assignment, context, handler } = setup(undefined, { maxRevisions: 3 });
    const first = delegated(await handler.start(context));
    const reply: OutcomeReply = {
      status: 'needs_clarification',
      summary: 'Ambiguous requirements for edge case handling',
      confidence: 0.4,
      result_refs: ['beads:routing/r1/task-graph'],
      error_type: 'ambiguous_request',
      error_detail: 'Should empty array return -1 or raise exception?',
      recoverable: true,
      artifacts: [{ artifact_type: 'aggregation_summary', inline_content: '{}', metadata: {} }],
    };
    const round = settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, () => reply);
    const outcome = reported(await handler.resume!(context, round));
    const { execution_time_ms: _time, ...sent } = round.children[0]!.outcome.payload;
    expect(outcome).toEqual(sent);
    expect(beads.writes.at(-1)?.[0]?.value).toEqual({ status: 'needs_clarification', summary: reply.summary, revisions: 0 });
  });

  it('forwards a success with revisions 0', async () => {
    const { assignment, context, handler } = setup();
    const first = delegated(await handler.start(context));
    const reply = dispatcherReply('all_success', [
      ['success', 0.9],
      ['success', 0.9],
      ['success', 0.6],
    ]);
    const round = settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, () => reply);
    const outcome = reported(await handler.resume!(context, round));
    const { execution_time_ms: _time, ...sent } = round.children[0]!.outcome.payload;
    expect(outcome).toEqual({ ...sent, resources_used: { ...sent.resources_used, revisions: 0 } });
  });

  it('without a plan, a recoverable failure sends the same objective again, as its one subtask avoiding the specialist that failed it', async () => {
    const { assignment, context, handler } = setup({ language: 'python', task_type: 'execute_code' }, { maxRevisions: 2 });
    const first = delegated(await handler.start(context));
    expect(first.memo).toMatchObject({ plan: null, delegated: [1] });
    const round = settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, () => dispatcherReply('all_success', [['failed', 0.1, 'python-lora']]));
    const second = delegated(await handler.resume!(context, round));
    const whole = { objective: 'binary search', task_type: 'execute_code', task_data: { language: 'python', task_type: 'execute_code' } };
    const revised = { strategy: 'all_success', subtasks: [{ ...whole, avoid_specialists: ['python-lora'] }] };
    expect(second.children).toEqual([{ ...first.children[0], task_data: { language: 'python', task_type: 'execute_code', plan: revised } }]);
    expect(second.memo).toMatchObject({ revisions: 1, kept: [], plan: revised, delegated: [1] });
    // A second revision avoids both.
    const again = settle(assignment, 'ABSTRACT_ARCHITECT', second, 1, () => dispatcherReply('all_success', [['failed', 0.1, 'sim']], 'd.1'));
    const third = delegated(await handler.resume!(context, again));
    expect(third.children[0]?.task_data?.plan).toEqual({ strategy: 'all_success', subtasks: [{ ...whole, avoid_specialists: ['python-lora', 'sim'] }] });
  });

  it('without a plan, a failure of no known specialist sends the objective again as it was', async () => {
    const { assignment, context, handler } = setup({ language: 'python' });
    const first = delegated(await handler.start(context));
    const reply: OutcomeReply = { status: 'failed', summary: 'lost', confidence: 0, error_type: 'worker_lost', error_detail: 'gone', recoverable: true };
    const second = delegated(
      await handler.resume!(
        context,
        settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, () => reply),
      ),
    );
    expect(second.children).toEqual(first.children);
    expect(second.memo).toMatchObject({ revisions: 1, kept: [], plan: null });
  });

  it('reports an unrecoverable failure at once', async () => {
    const { assignment, context, handler } = setup();
    const first = delegated(await handler.start(context));
    const reply: OutcomeReply = { status: 'failed', summary: 'bad', confidence: 0, error_type: 'invalid_plan', error_detail: 'no', recoverable: false };
    const outcome = reported(
      await handler.resume!(
        context,
        settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, () => reply),
      ),
    );
    expect(outcome).toMatchObject({ status: 'failed', error_type: 'invalid_plan', recoverable: false, resources_used: { revisions: 0 } });
  });
});
