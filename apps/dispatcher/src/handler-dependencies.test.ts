import { outcomePayloadSchema, type Artifact, type DelegationPayloadInput } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import { FakeBeads, FIXED_NOW, delegated, delegationTo, fakeContext, reported, settle, type OutcomeReply } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { dispatcherHandler } from './handler.js';
import { DEFAULT_FLEET_TIMEOUT_MS } from './options.js';

// The Dispatcher over plans whose subtasks depend on each other (docs/protocol.md#subtask-dependencies):
// a draft, its review, a summary of the review, and one independent subtask.
const ID = 'r1.0-0.0-0';

const plan: Plan = {
  strategy: 'all_success',
  subtasks: [
    { objective: 'draft the report', task_type: 'write' },
    { objective: 'review the draft', task_type: 'analyse', depends_on: [1] },
    { objective: 'summarise the review', task_type: 'write', depends_on: [2], timeout_ms: 5_000 },
    { objective: 'collect the figures', task_type: 'fetch' },
  ],
};

function setup(given: Plan = plan, routing: Record<string, string[]> = { '*': ['sim', 'gpu'] }) {
  const beads = new FakeBeads('ROUTING_DISPATCHER');
  const payload: DelegationPayloadInput = { task_type: 'decompose_and_solve', objective: 'a report', task_data: { plan: given } };
  const assignment = delegationTo('ROUTING_DISPATCHER', ID, payload);
  let now = FIXED_NOW;
  const context = fakeContext(assignment, beads, () => now);
  const handler = dispatcherHandler({ routing });
  return { beads, assignment, context, handler, later: (ms: number) => (now += ms) };
}

const text = (content: string): Artifact => ({ artifact_type: 'text', content_ref: null, inline_content: content, metadata: {} });
const graded = { status: 'success', summary: 'drafted', confidence: 0.9, artifacts: [text('the draft')], evidence_grade: 'PP' };
const success = (summary = 'done'): OutcomeReply => ({ status: 'success', summary, confidence: 0.9, artifacts: [text(summary)] });
const failed: OutcomeReply = { status: 'failed', summary: 'broke', confidence: 0.1, error_type: 'crash', error_detail: 'segfault', recoverable: true };
const unavailable: OutcomeReply = { status: 'failed', summary: 'not loaded', confidence: 0, error_type: 'specialist_unavailable', error_detail: 'sim is not loaded', recoverable: false };

const indexOf = (request: { task_data: Record<string, unknown> }): unknown => request.task_data.subtask_index;
const sentIndices = (step: ReturnType<typeof delegated>): unknown[] => step.children.map((child) => child.task_data?.subtask_index);

describe('a plan with dependencies', () => {
  it('starts with what depends on nothing, and writes the dependencies into the task graph', async () => {
    const { beads, context, handler } = setup();
    const step = delegated(await handler.start(context));
    expect(sentIndices(step)).toEqual([1, 4]);
    expect(step.children.every((child) => child.task_data?.upstream === undefined)).toBe(true);
    expect(step.memo).toMatchObject({ subtasks: [{ deadline: FIXED_NOW + DEFAULT_FLEET_TIMEOUT_MS }, { deadline: null }, { deadline: null }, { deadline: FIXED_NOW + DEFAULT_FLEET_TIMEOUT_MS }] });
    expect(beads.writes[0]?.[0]).toMatchObject({
      key: 'routing/r1/task-graph',
      value: {
        edges: [
          [1, 2],
          [2, 3],
        ],
      },
    });
  });

  it('sends each dependent once its dependency succeeded, with that work in task_data.upstream, and reports once all are in', async () => {
    const { assignment, context, handler, later } = setup();
    const first = delegated(await handler.start(context));
    const round0 = settle(assignment, 'ROUTING_DISPATCHER', first, 0, (request) => (indexOf(request) === 1 ? (graded as OutcomeReply) : success('figures')), [1, 0]);

    later(1_000);
    const second = delegated(await handler.resume!(context, round0));
    expect(second.children).toEqual([
      expect.objectContaining({
        objective: 'review the draft',
        timeout_ms: DEFAULT_FLEET_TIMEOUT_MS,
        task_data: {
          task_type: 'analyse',
          subtask_index: 2,
          subtask_total: 4,
          upstream: [
            { subtask_index: 1, message_id: 'r1.0-0.0-0.0-0', task_type: 'write', specialist: 'sim', summary: 'drafted', confidence: 0.9, evidence_grade: 'PP', artifacts: [text('the draft')] },
          ],
        },
      }),
    ]);
    // Its deadline counts from when it is sent.
    expect(second.memo).toMatchObject({ subtasks: [{}, { deadline: FIXED_NOW + 1_000 + DEFAULT_FLEET_TIMEOUT_MS }, { deadline: null }, {}] });

    const round1 = settle(assignment, 'ROUTING_DISPATCHER', second, 1, () => success('reviewed'));
    const third = delegated(await handler.resume!(context, round1));
    expect(third.children).toEqual([
      expect.objectContaining({
        objective: 'summarise the review',
        timeout_ms: 5_000,
        task_data: expect.objectContaining({ upstream: [expect.objectContaining({ subtask_index: 2, message_id: 'r1.0-0.0-0.1-0', summary: 'reviewed', evidence_grade: null })] }) as unknown,
      }),
    ]);

    const round2 = settle(assignment, 'ROUTING_DISPATCHER', third, 2, () => success('summarised'));
    const outcome = outcomePayloadSchema.parse({ ...reported(await handler.resume!(context, round2)), execution_time_ms: 5 });
    expect(outcome).toMatchObject({ status: 'success', resources_used: { rounds: 3 } });
    expect(outcome.artifacts[0]?.metadata.child_outcomes).toEqual([
      expect.objectContaining({ id: 'r1.0-0.0-0.0-1', subtask_index: 4 }),
      expect.objectContaining({ id: 'r1.0-0.0-0.0-0', subtask_index: 1 }),
      expect.objectContaining({ id: 'r1.0-0.0-0.1-0', subtask_index: 2 }),
      expect.objectContaining({ id: 'r1.0-0.0-0.2-0', subtask_index: 3 }),
    ]);
  });

  it('does not run the dependents of a failed subtask: dependency_failed, recoverable as the failure was, reported at once', async () => {
    const { beads, assignment, context, handler } = setup();
    const first = delegated(await handler.start(context));
    const round0 = settle(assignment, 'ROUTING_DISPATCHER', first, 0, (request) => (indexOf(request) === 1 ? failed : success()));
    const outcome = outcomePayloadSchema.parse({ ...reported(await handler.resume!(context, round0)), execution_time_ms: 5 });
    expect(outcome).toMatchObject({ status: 'partial', error_type: 'majority_failed', recoverable: true });
    expect(outcome.error_detail).toBe(
      'sim failed: segfault; sim failed: subtask 1, which it depends on, ended failed (crash); sim failed: subtask 2, which it depends on, ended failed (dependency_failed)',
    );
    expect(outcome.artifacts[0]?.metadata.child_outcomes).toEqual([
      expect.objectContaining({ id: 'r1.0-0.0-0.0-0', status: 'failed', subtask_index: 1 }),
      expect.objectContaining({ id: 'r1.0-0.0-0.0-1', status: 'success', subtask_index: 4 }),
      // Never sent: no attempts, no specialist tried.
      {
        id: ID,
        status: 'failed',
        specialist: 'sim',
        confidence: 0,
        subtask_index: 2,
        artifact_count: 0,
        error_type: 'dependency_failed',
        summary: expect.stringContaining('subtask 1') as unknown,
        attempts: 0,
        tried: [],
      },
      {
        id: ID,
        status: 'failed',
        specialist: 'sim',
        confidence: 0,
        subtask_index: 3,
        artifact_count: 0,
        error_type: 'dependency_failed',
        summary: expect.stringContaining('subtask 2') as unknown,
        attempts: 0,
        tried: [],
      },
    ]);
    expect(beads.writes.at(-1)?.[0]?.value).toMatchObject({ nodes: [{ status: 'failed' }, { status: 'failed' }, { status: 'failed' }, { status: 'success' }] });
  });

  it('makes the dependents of a re-routed subtask wait for its new answer, and hands them that one', async () => {
    const { assignment, context, handler } = setup();
    const first = delegated(await handler.start(context));
    const round0 = settle(assignment, 'ROUTING_DISPATCHER', first, 0, (request) => (indexOf(request) === 1 ? unavailable : success()));
    const second = delegated(await handler.resume!(context, round0));
    expect(second.children).toEqual([expect.objectContaining({ objective: 'draft the report', specialist_hint: 'gpu' })]);

    const round1 = settle(assignment, 'ROUTING_DISPATCHER', second, 1, () => success('drafted on gpu'));
    const third = delegated(await handler.resume!(context, round1));
    expect(third.children).toEqual([
      expect.objectContaining({
        objective: 'review the draft',
        task_data: expect.objectContaining({ upstream: [expect.objectContaining({ subtask_index: 1, message_id: 'r1.0-0.0-0.1-0', specialist: 'gpu', summary: 'drafted on gpu' })] }) as unknown,
      }),
    ]);
  });

  it('hands a re-routed dependent its upstream work again', async () => {
    const { assignment, context, handler } = setup();
    const first = delegated(await handler.start(context));
    const round0 = settle(assignment, 'ROUTING_DISPATCHER', first, 0, () => success('drafted'));
    const second = delegated(await handler.resume!(context, round0));
    const round1 = settle(assignment, 'ROUTING_DISPATCHER', second, 1, () => unavailable);
    const third = delegated(await handler.resume!(context, round1));
    expect(third.children).toEqual([
      expect.objectContaining({
        objective: 'review the draft',
        specialist_hint: 'gpu',
        task_data: expect.objectContaining({ upstream: [expect.objectContaining({ subtask_index: 1, message_id: 'r1.0-0.0-0.0-0', summary: 'drafted' })] }) as unknown,
      }),
    ]);
  });

  it('sends a released dependent in the same round as a re-route', async () => {
    const { assignment, context, handler } = setup();
    const first = delegated(await handler.start(context));
    const round0 = settle(assignment, 'ROUTING_DISPATCHER', first, 0, (request) => (indexOf(request) === 4 ? unavailable : success()));
    const second = delegated(await handler.resume!(context, round0));
    expect(second.children.map((child) => [child.task_data?.subtask_index, child.specialist_hint])).toEqual([
      [2, 'sim'],
      [4, 'gpu'],
    ]);
  });

  it('gives a dependent released in a throttled round its whole time after the back-off', async () => {
    const { assignment, context, handler } = setup(plan, { '*': ['sim'] });
    const first = delegated(await handler.start(context));
    const throttled: OutcomeReply = { status: 'throttled', summary: 'busy', confidence: 0, error_type: 'throttled', error_detail: 'at its limit', recoverable: true };
    const round0 = settle(assignment, 'ROUTING_DISPATCHER', first, 0, (request) => (indexOf(request) === 4 ? throttled : success()));
    const second = delegated(await handler.resume!(context, round0));
    expect(sentIndices(second)).toEqual([2, 4]);
    expect(second.delayMs).toBeGreaterThan(0);
    expect(second.children[0]?.timeout_ms).toBe(DEFAULT_FLEET_TIMEOUT_MS + Math.floor(second.delayMs!));
  });

  it('makes dependents wait while a subtask is sent again with a concern', async () => {
    const { assignment, context, handler } = setup();
    const first = delegated(await handler.start(context));
    const low: OutcomeReply = { status: 'failed', summary: 'unsure', confidence: 0.2, error_type: 'low_confidence_retry', error_detail: 'confidence 0.20 is under 0.5', recoverable: true };
    const round0 = settle(assignment, 'ROUTING_DISPATCHER', first, 0, (request) => (indexOf(request) === 1 ? low : success()));
    const second = delegated(await handler.resume!(context, round0));
    expect(second.children).toEqual([expect.objectContaining({ objective: 'draft the report', task_data: expect.objectContaining({ concern: 'confidence 0.20 is under 0.5' }) as unknown })]);
    const round1 = settle(assignment, 'ROUTING_DISPATCHER', second, 1, () => success('sure now'));
    expect(delegated(await handler.resume!(context, round1)).children).toEqual([
      expect.objectContaining({ objective: 'review the draft', task_data: expect.objectContaining({ upstream: [expect.objectContaining({ summary: 'sure now' })] }) as unknown }),
    ]);
  });
});
