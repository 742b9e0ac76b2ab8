import { TaskState } from '@a2a-js/sdk';
import { OUTCOME_STATUSES, outcomePayloadSchema, type OutcomePayloadInput } from '@tierflow/protocol';
import { runNode } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { streamUpdates } from './run-follow.js';
import { a2aArtifacts, isInterrupted, outcomeState, runState, runTask } from './task-view.js';

const root = (overrides: Parameters<typeof runNode>[1] = {}) => runNode('r1', { tier: 'PROGRESS_MONITOR', task_type: 'objective', specialist: null, ...overrides });
const payload = (overrides: Partial<OutcomePayloadInput> = {}) =>
  outcomePayloadSchema.parse({ status: 'success', summary: 'done', confidence: 0.9, execution_time_ms: 5, ...overrides } satisfies OutcomePayloadInput);

describe('the state of a run', () => {
  it('maps every outcome status: success completed, cancelled canceled, every other a failure', () => {
    const states = Object.fromEntries(OUTCOME_STATUSES.map((status) => [status, outcomeState(status)]));
    expect(states).toEqual({
      success: TaskState.TASK_STATE_COMPLETED,
      cancelled: TaskState.TASK_STATE_CANCELED,
      partial: TaskState.TASK_STATE_FAILED,
      failed: TaskState.TASK_STATE_FAILED,
      blocked: TaskState.TASK_STATE_FAILED,
      timeout: TaskState.TASK_STATE_FAILED,
      needs_clarification: TaskState.TASK_STATE_FAILED,
      throttled: TaskState.TASK_STATE_FAILED,
    });
  });

  it('is working while the run runs or waits in a queue, whatever its job state', () => {
    for (const [status, state] of [
      ['queued', 'waiting'],
      ['running', 'active'],
      ['retrying', 'delayed'],
      ['waiting_for_children', 'waiting-children'],
      ['queued', 'prioritized'],
    ] as const) {
      expect(runState(root({ status, source: 'queue', queue_state: state }), null)).toBe(TaskState.TASK_STATE_WORKING);
    }
  });

  it('asks for input while a question is open, and is working again once every one has an answer', () => {
    const asking = root({ status: 'input_required', source: 'queue', questions: [{ id: 'q1', question: 'Which region?', tier: 'SPECIALIZED_FLEET', answer: null }] });
    expect(runState(asking, null)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(isInterrupted(runState(asking, null))).toBe(true);
    const answered = root({ ...asking, questions: [{ id: 'q1', question: 'Which region?', tier: 'SPECIALIZED_FLEET', answer: 'eu-west' }] });
    expect(runState(answered, null)).toBe(TaskState.TASK_STATE_WORKING);
  });

  it('takes the outcome over the queue, the audit trail when the job is gone, and fails a root that ended with neither', () => {
    expect(runState(root({ status: 'running', source: 'queue' }), payload({ status: 'partial', error_type: 'partial_completion' }))).toBe(TaskState.TASK_STATE_FAILED);
    expect(runState(root({ status: 'cancelled', source: 'outcome', queue_state: null }), null)).toBe(TaskState.TASK_STATE_CANCELED);
    expect(runState(root({ status: 'cancelled', source: 'cancellation', queue_state: null }), null)).toBe(TaskState.TASK_STATE_CANCELED);
    expect(runState(root({ status: 'failed', source: 'queue', queue_state: 'failed' }), null)).toBe(TaskState.TASK_STATE_FAILED);
    expect(runState(root({ status: 'missing', source: 'none', queue_state: null }), null)).toBe(TaskState.TASK_STATE_FAILED);
  });
});

describe('a run as a task', () => {
  it('is the root, with the outcome’s artifacts (inline content as text, stored content by reference) and its summary', () => {
    const outcome = payload({
      summary: '2/2 subtasks succeeded',
      artifacts: [
        { artifact_type: 'code', inline_content: 'def f(): ...', metadata: { language: 'python' } },
        { artifact_type: 'text', content_ref: 'beads:execution/outputs/r1.0-0.0-0.0-1/0' },
      ],
    });
    const task = runTask('r1', root({ finished_at: '2026-01-01T00:00:00.000Z' }), outcome);
    expect(task).toMatchObject({
      id: 'r1',
      contextId: 'r1',
      status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: '2026-01-01T00:00:00.000Z', message: { parts: [{ content: { $case: 'text', value: '2/2 subtasks succeeded' } }] } },
      metadata: { tierflow: { root_id: 'r1', status: 'success', confidence: 0.9 } },
    });
    expect(task.artifacts).toEqual(a2aArtifacts(outcome.artifacts));
    expect(task.artifacts.map((artifact) => [artifact.name, artifact.parts[0]?.content, artifact.metadata])).toEqual([
      ['code', { $case: 'text', value: 'def f(): ...' }, { language: 'python' }],
      ['text', { $case: 'data', value: { content_ref: 'beads:execution/outputs/r1.0-0.0-0.0-1/0', artifact_type: 'text' } }, undefined],
    ]);
  });

  it('says what a waiting run asks, open questions only, as text and as data', () => {
    const task = runTask(
      'r1',
      root({
        status: 'input_required',
        source: 'queue',
        questions: [
          { id: 'q1', question: 'Which region?', tier: 'SPECIALIZED_FLEET', answer: null },
          { id: 'q2', question: 'Which year?', tier: 'SPECIALIZED_FLEET', answer: '2026' },
        ],
      }),
      null,
    );
    expect(task.status?.message?.parts.map((part) => part.content)).toEqual([
      { $case: 'text', value: 'Which region?' },
      { $case: 'data', value: { questions: [{ id: 'q1', question: 'Which region?' }] } },
    ]);
  });

  it('says a failure’s detail with its summary', () => {
    const task = runTask('r1', root({ status: 'failed' }), payload({ status: 'failed', summary: 'nothing worked', error_type: 'all_failed', error_detail: 'sim: scripted failed' }));
    expect(task.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'nothing worked: sim: scripted failed' });
  });

  it('streams a finished task as its artifacts, then its status; a running one as its status alone', () => {
    const done = runTask('r1', root(), payload({ artifacts: [{ artifact_type: 'text', inline_content: 'x' }] }));
    expect(streamUpdates(done).map((update) => update.payload?.$case)).toEqual(['artifactUpdate', 'statusUpdate']);
    expect(streamUpdates(runTask('r1', root({ status: 'running', source: 'queue' }), null)).map((update) => update.payload?.$case)).toEqual(['statusUpdate']);
  });
});
