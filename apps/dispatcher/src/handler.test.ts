import { outcomePayloadSchema, type Artifact, type DelegationPayloadInput } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import type { Planner } from '@tierflow/runtime/policy';
import { describe, expect, it } from 'vitest';
import { FakeBeads, delegationTo, fakeContext, settle, delegated, reported, type OutcomeReply } from '@tierflow/runtime/testing';
import { dispatcherHandler } from './handler.js';
import { DEFAULT_FLEET_TIMEOUT_MS } from './options.js';

const ID = 'r1.0-0.0-0';

const plan: Plan = {
  strategy: 'all_success',
  subtasks: [
    { objective: 'write binary search', task_type: 'execute_code', task_data: { language: 'python' } },
    { objective: 'write tests', task_type: 'test', specialist_hint: 'test-lora', timeout_ms: 5_000 },
    { objective: 'review', task_type: 'review', constraints: ['be brief'] },
  ],
};

function payload(taskData: DelegationPayloadInput['task_data'] = { plan }): DelegationPayloadInput {
  return { task_type: 'decompose_and_solve', objective: 'binary search', constraints: ['O(log n)'], priority: 1, task_data: taskData };
}

function setup(taskData?: DelegationPayloadInput['task_data'], decomposer?: Planner) {
  const beads = new FakeBeads('ROUTING_DISPATCHER');
  const assignment = delegationTo('ROUTING_DISPATCHER', ID, payload(taskData));
  const context = fakeContext(assignment, beads);
  const handler = dispatcherHandler({ routing: { execute_code: ['python-lora', 'sim'], test: ['sim'], '*': ['sim', 'gpu'] }, ...(decomposer ? { decomposer } : {}) });
  return { beads, assignment, context, handler };
}

const code: Artifact = { artifact_type: 'code', content_ref: null, inline_content: 'def f(): ...', metadata: {} };
const success = (confidence = 0.9): OutcomeReply => ({ status: 'success', summary: 'done', confidence, artifacts: [code] });
const failed: OutcomeReply = { status: 'failed', summary: 'broke', confidence: 0.2, error_type: 'crash', error_detail: 'segfault', recoverable: true };
const unavailable: OutcomeReply = {
  status: 'failed',
  summary: 'specialist python-lora unavailable',
  confidence: 0,
  error_type: 'specialist_unavailable',
  error_detail: 'python-lora is not loaded',
  recoverable: true,
};

describe('dispatcherHandler.start', () => {
  it('routes a plan of 3 subtasks: the hint wins, the rest by task type, alternates remembered', async () => {
    const { beads, context, handler } = setup();
    const step = delegated(await handler.start(context));
    expect(step.strategy).toBe('all_success');
    expect(step.children).toEqual([
      {
        task_type: 'execute_code',
        objective: 'write binary search',
        constraints: ['O(log n)'],
        priority: 1,
        timeout_ms: DEFAULT_FLEET_TIMEOUT_MS,
        specialist_hint: 'python-lora',
        context_refs: ['beads:routing/r1/task-graph'],
        task_data: { language: 'python', task_type: 'execute_code', subtask_index: 1, subtask_total: 3 },
        routing: { mode: 'fixed', task_type: 'execute_code', chosen: 'python-lora', reason: 'fixed', fixed: 'python-lora', learned: null, expected_gain: null, scores: [] },
      },
      expect.objectContaining({
        specialist_hint: 'test-lora',
        timeout_ms: 5_000,
        task_data: { task_type: 'test', subtask_index: 2, subtask_total: 3 },
        routing: expect.objectContaining({ reason: 'hint' }) as unknown,
      }),
      expect.objectContaining({ specialist_hint: 'sim', constraints: ['be brief'], task_data: { task_type: 'review', subtask_index: 3, subtask_total: 3 } }),
    ]);
    expect(step.memo).toMatchObject({
      subtasks: [
        { index: 1, specialist: 'python-lora', alternates: ['sim'] },
        { index: 2, specialist: 'test-lora', alternates: ['sim'] },
        { index: 3, specialist: 'sim', alternates: ['gpu'] },
      ],
    });
    expect(beads.writes).toEqual([
      [
        {
          key: 'routing/r1/task-graph',
          value: {
            strategy: 'all_success',
            nodes: [
              { index: 1, objective: 'write binary search', task_type: 'execute_code', status: 'pending' },
              { index: 2, objective: 'write tests', task_type: 'test', status: 'pending' },
              { index: 3, objective: 'review', task_type: 'review', status: 'pending' },
            ],
            edges: [],
          },
        },
        { key: 'routing/r1/assignments', value: { 1: 'python-lora', 2: 'test-lora', 3: 'sim' } },
      ],
    ]);
  });

  it('makes one subtask of an objective without a plan', async () => {
    const { context, handler } = setup({ task_type: 'execute_code', problem_id: 'leetcode-704' });
    const step = delegated(await handler.start(context));
    expect(step.strategy).toBe('all_success');
    expect(step.children).toEqual([
      expect.objectContaining({
        task_type: 'execute_code',
        objective: 'binary search',
        specialist_hint: 'python-lora',
        task_data: { task_type: 'execute_code', problem_id: 'leetcode-704', subtask_index: 1, subtask_total: 1 },
      }),
    ]);
  });

  it('refuses an invalid plan permanently and writes nothing', async () => {
    const { beads, context, handler } = setup({ plan: { strategy: 'all_success', subtasks: [] } });
    await expect(handler.start(context)).rejects.toMatchObject({ code: 'invalid_plan', retryable: false });
    expect(beads.writes).toEqual([]);
  });
});

describe('dispatcherHandler with a decomposer', () => {
  it('splits a delegation without a plan, keeps the plan in its memo and routes from it in later rounds', async () => {
    const asked: string[] = [];
    const decomposer: Planner = (request) => {
      asked.push(request.objective);
      return Promise.resolve(plan);
    };
    const { assignment, context, handler } = setup({ language: 'python' }, decomposer);
    const first = delegated(await handler.start(context));
    expect(asked).toEqual(['binary search']);
    expect(first.children.map((child) => child.specialist_hint)).toEqual(['python-lora', 'test-lora', 'sim']);
    expect(first.memo).toMatchObject({ plan });
    // python-lora is unavailable: the re-route comes from the remembered plan, without asking again.
    const round0 = settle(assignment, 'ROUTING_DISPATCHER', first, 0, (_request, i) => (i === 0 ? unavailable : success()));
    const second = delegated(await handler.resume!(context, round0));
    expect(asked).toHaveLength(1);
    expect(second.children).toEqual([expect.objectContaining({ objective: 'write binary search', specialist_hint: 'sim' })]);
  });

  it('leaves a delegation that carries its plan to that plan', async () => {
    const { context, handler } = setup(undefined, () => Promise.reject(new Error('not to be called')));
    expect(delegated(await handler.start(context)).children).toHaveLength(3);
  });

  it('fails with invalid_plan when the decomposer returns no plan', async () => {
    const { context, handler } = setup({}, () => Promise.resolve('three subtasks, trust me'));
    await expect(handler.start(context)).rejects.toMatchObject({ code: 'invalid_plan' });
  });
});

describe('dispatcherHandler.resume', () => {
  it('re-routes exactly the subtask whose specialist was unavailable, then reports over all subtasks', async () => {
    const { beads, assignment, context, handler } = setup();
    const first = delegated(await handler.start(context));
    const round0 = settle(assignment, 'ROUTING_DISPATCHER', first, 0, (_request, i) => (i === 0 ? unavailable : success(0.8)), [1, 0, 2]);

    const second = delegated(await handler.resume!(context, round0));
    expect(second.children).toEqual([
      expect.objectContaining({ objective: 'write binary search', specialist_hint: 'sim', task_data: { language: 'python', task_type: 'execute_code', subtask_index: 1, subtask_total: 3 } }),
    ]);
    expect(second.memo).toMatchObject({ subtasks: [{ index: 1, specialist: 'sim', alternates: [] }, { index: 2 }, { index: 3 }] });
    expect(beads.writes.at(-1)).toEqual([{ key: 'routing/r1/assignments', value: { 1: 'sim', 2: 'test-lora', 3: 'sim' } }]);

    const round1 = settle(assignment, 'ROUTING_DISPATCHER', second, 1, () => success(1));
    const outcome = reported(await handler.resume!(context, round1));
    expect(outcome).toMatchObject({
      status: 'success',
      confidence: expect.closeTo((0.8 + 0.8 + 1) / 3, 10) as unknown,
      result_refs: ['beads:routing/r1/task-graph'],
      resources_used: { parallel_tasks: 3, specialists_used: ['test-lora', 'sim'], rounds: 2 },
    });
    const [summary] = outcome.artifacts as Artifact[];
    const done = (attempts: number, tried: string[]) => ({ error_type: null, summary: 'done', attempts, tried });
    expect(summary?.metadata.child_outcomes).toEqual([
      { id: 'r1.0-0.0-0.0-1', status: 'success', specialist: 'test-lora', confidence: 0.8, subtask_index: 2, artifact_count: 1, ...done(1, ['test-lora']) },
      { id: 'r1.0-0.0-0.0-2', status: 'success', specialist: 'sim', confidence: 0.8, subtask_index: 3, artifact_count: 1, ...done(1, ['sim']) },
      // Re-routed: its attempts and the specialists tried are what a revision would avoid.
      { id: 'r1.0-0.0-0.1-0', status: 'success', specialist: 'sim', confidence: 1, subtask_index: 1, artifact_count: 1, ...done(2, ['python-lora', 'sim']) },
    ]);
    expect(outcomePayloadSchema.safeParse({ ...outcome, execution_time_ms: 12 }).success).toBe(true);
    const graphWrite = beads.writes.at(-1);
    expect(graphWrite?.map((entry) => entry.key)).toEqual(['routing/r1/task-graph']);
    expect(graphWrite?.[0]?.value).toMatchObject({ nodes: [1, 2, 3].map((index) => ({ index, status: 'success' })) });
  });

  it('reports success when every subtask succeeds', async () => {
    const { beads, assignment, context, handler } = setup();
    const step = delegated(await handler.start(context));
    const outcome = reported(
      await handler.resume!(
        context,
        settle(assignment, 'ROUTING_DISPATCHER', step, 0, () => success()),
      ),
    );
    const parsed = outcomePayloadSchema.parse({ ...outcome, execution_time_ms: 5 });
    expect(parsed).toMatchObject({ status: 'success', confidence: 0.9, error_type: null, recoverable: null });
    expect(parsed.artifacts.map((artifact) => artifact.artifact_type)).toEqual(['aggregation_summary', 'code', 'code', 'code']);
    expect(JSON.parse(parsed.artifacts[0]!.inline_content!)).toEqual({ strategy: 'all_success', succeeded: 3, failed: 0 });
    expect(parsed.artifacts[0]!.metadata.child_outcomes).toHaveLength(3);
    expect(beads.writes).toHaveLength(2);
  });

  it('1 success and 2 failures under all_success: partial, majority_failed', async () => {
    const { assignment, context, handler } = setup();
    const step = delegated(await handler.start(context));
    const round = settle(assignment, 'ROUTING_DISPATCHER', step, 0, (_request, i) => (i === 1 ? success() : failed));
    const outcome = reported(await handler.resume!(context, round));
    expect(outcome).toMatchObject({ status: 'partial', error_type: 'majority_failed', recoverable: true });
    expect(outcome.error_detail).toBe('python-lora failed: segfault; sim failed: segfault');
    expect((outcome.artifacts as Artifact[])[0]?.metadata).toMatchObject({ revise: true, rounds: 1 });
  });

  it('reports the failure once no alternate is left', async () => {
    const { assignment, context, handler } = setup({ task_type: 'test' });
    const step = delegated(await handler.start(context));
    const outcome = reported(
      await handler.resume!(
        context,
        settle(assignment, 'ROUTING_DISPATCHER', step, 0, () => unavailable),
      ),
    );
    expect(outcome).toMatchObject({ status: 'failed', error_type: 'all_failed', error_detail: 'sim failed: python-lora is not loaded', recoverable: true });
  });

  it('asks up when a child needs clarification', async () => {
    const { assignment, context, handler } = setup();
    const step = delegated(await handler.start(context));
    const question: OutcomeReply = { status: 'needs_clarification', summary: '?', confidence: 0.5, error_type: 'ambiguous_request', error_detail: 'Return -1 or raise?', recoverable: true };
    const outcome = reported(
      await handler.resume!(
        context,
        settle(assignment, 'ROUTING_DISPATCHER', step, 0, (_r, i) => (i === 2 ? question : success())),
      ),
    );
    expect(outcome).toMatchObject({ status: 'needs_clarification', error_type: 'ambiguous_request', error_detail: 'Return -1 or raise?' });
  });
});
