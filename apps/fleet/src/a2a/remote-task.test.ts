import { TaskState } from '@a2a-js/sdk';
import { DELEGATION_CHAIN_KEY, isTierflowError, LOCAL_CHAIN } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { SpecialistThrottledError, SpecialistUnavailableError } from '../specialist.js';
import { specialistInput } from '../test-input.js';
import { a2aError, httpError, httpFailure } from './a2a-failure.js';
import { isOver, isRunning, remoteMessage, remoteResult, remoteTaskSchema, type RemoteTask } from './remote-task.js';

const text = (value: string) => ({ content: { $case: 'text' as const, value }, mediaType: 'text/plain', filename: '' });

function task(state: TaskState, said?: string, extra: Partial<RemoteTask> = {}): RemoteTask {
  return remoteTaskSchema.parse({ id: 't1', status: { state, ...(said === undefined ? {} : { message: { parts: [text(said)] } }) }, artifacts: [], ...extra });
}

describe('a remote task’s end, as the Fleet reports it', () => {
  it('is success with its artifacts when completed, one per part, at the agent’s confidence or the default', () => {
    const done = task(TaskState.TASK_STATE_COMPLETED, 'wrote it', {
      artifacts: [
        { artifactId: 'a1', name: 'code', parts: [text('def f(): ...')], metadata: { language: 'python' } },
        { artifactId: 'a2', name: '', parts: [{ content: { $case: 'data', value: { ok: true } }, mediaType: 'application/json', filename: '' }] },
      ],
    });
    expect(remoteResult(done, 'writer', 0.8)).toEqual({
      status: 'success',
      summary: 'wrote it',
      confidence: 0.8,
      artifacts: [
        { artifact_type: 'code', content: 'def f(): ...', metadata: { language: 'python', a2a_artifact_id: 'a1', media_type: 'text/plain' } },
        { artifact_type: 'data', content: '{"ok":true}', metadata: { a2a_artifact_id: 'a2', media_type: 'application/json' } },
      ],
      resources_used: { a2a: { agent: 'writer', task_id: 't1' } },
    });
    // A remote Tierflow says its own confidence.
    expect(remoteResult(task(TaskState.TASK_STATE_COMPLETED, undefined, { metadata: { tierflow: { confidence: 0.95 } } }), 'writer', 0.8)).toMatchObject({
      confidence: 0.95,
      summary: 'writer completed task t1',
    });
  });

  it('asks the run’s person what the agent asks when it wants input', () => {
    expect(remoteResult(task(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which region?'), 'writer', 0.8)).toMatchObject({
      status: 'needs_clarification',
      error_type: 'ambiguous_request',
      error_detail: 'Which region?',
      recoverable: true,
    });
  });

  it('fails when the task failed, was rejected or canceled over there, or wants credentials, saying so', () => {
    const cases: [TaskState, string, boolean][] = [
      [TaskState.TASK_STATE_FAILED, 'a2a_task_failed', true],
      [TaskState.TASK_STATE_REJECTED, 'a2a_task_rejected', false],
      [TaskState.TASK_STATE_CANCELED, 'a2a_task_canceled', false],
      [TaskState.TASK_STATE_AUTH_REQUIRED, 'a2a_auth_required', false],
    ];
    for (const [state, errorType, recoverable] of cases) {
      expect(remoteResult(task(state, 'it broke'), 'writer', 0.8)).toMatchObject({ status: 'failed', error_type: errorType, error_detail: 'it broke', recoverable });
    }
    expect(remoteResult(task(TaskState.TASK_STATE_FAILED), 'writer', 0.8)).toMatchObject({ summary: 'writer: task t1 failed', error_detail: 'the remote task failed' });
  });

  it('goes on following a submitted or working task, and has no result for it yet', () => {
    for (const state of [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]) {
      expect([isRunning(task(state)), isOver(task(state))]).toEqual([true, false]);
      expect(() => remoteResult(task(state), 'writer', 0.8)).toThrow(/still running/);
    }
    // An asking task is neither running nor over: the specialist stops following it, and cancels it.
    expect([isRunning(task(TaskState.TASK_STATE_INPUT_REQUIRED)), isOver(task(TaskState.TASK_STATE_INPUT_REQUIRED))]).toEqual([false, false]);
  });

  it('refuses a task out of shape', () => {
    expect(remoteTaskSchema.safeParse({ id: '', status: { state: TaskState.TASK_STATE_WORKING } }).success).toBe(false);
    expect(remoteTaskSchema.safeParse({ id: 't1', status: { state: 42 } }).success).toBe(false);
  });
});

describe('the message that hands a subtask over', () => {
  it('gives the objective as text, and an objective file with the task data, constraints and the time left as data', () => {
    const input = specialistInput({ objective: 'Write it', taskData: { sim: { delay_ms: 1 } }, constraints: ['python'], deadline: 11_000 });
    const message = remoteMessage(input, LOCAL_CHAIN, 'm1', 1_000);
    expect(message.parts.map((part) => part.content)).toEqual([
      { $case: 'text', value: 'Write it' },
      { $case: 'data', value: { objective: 'Write it', task_data: { sim: { delay_ms: 1 } }, constraints: ['python'], timeout_ms: 9_750 } },
    ]);
    expect(message.messageId).toBe('m1');
    expect(remoteMessage(specialistInput({ objective: 'Write it' }), LOCAL_CHAIN, 'm2', 0).parts[1]?.content).toEqual({ $case: 'data', value: { objective: 'Write it' } });
  });

  it('carries the delegation chain in its metadata, not in the objective file', () => {
    const chain = { depth: 2, visited: ['d-a', 'd-b'] };
    const taskData = { sim: { delay_ms: 1 }, [DELEGATION_CHAIN_KEY]: { depth: 1, visited: ['d-a'] } };
    const message = remoteMessage(specialistInput({ objective: 'Write it', taskData }), chain, 'm1', 0);
    expect(message.metadata).toEqual({ [DELEGATION_CHAIN_KEY]: chain });
    expect(message.parts[1]?.content).toEqual({ $case: 'data', value: { objective: 'Write it', task_data: { sim: { delay_ms: 1 } } } });
  });

  it('carries the answers to the run’s earlier questions in its text too', () => {
    const taskData = { clarifications: [{ question_id: 'r.0-0.out', question: 'Which region?', answer: 'eu-west' }] };
    expect(remoteMessage(specialistInput({ objective: 'Deploy', taskData }), LOCAL_CHAIN, 'm1', 0).parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Deploy\n\nAnswers to earlier questions:\nQ: Which region?\nA: eu-west',
    });
  });
});

describe('a failed call to the agent', () => {
  it('is classified by its HTTP status: a bad token and refusals final, busy throttled, missing unavailable, the rest tried again', () => {
    expect([401, 403, 404, 429, 503, 500, 408, 400].map(httpFailure)).toEqual(['unauthorized', 'unauthorized', 'unavailable', 'throttled', 'throttled', 'retryable', 'retryable', 'permanent']);
    expect(httpError('writer', 'http://x/a2a', 503, 'busy')).toBeInstanceOf(SpecialistThrottledError);
    expect(httpError('writer', 'http://x/.well-known/agent-card.json', 404, '')).toBeInstanceOf(SpecialistUnavailableError);
    expect(httpError('writer', 'http://x/a2a', 401, '')).toMatchObject({ code: 'a2a_unauthorized', retryable: false });
    expect(httpError('writer', 'http://x/a2a', 502, '')).toMatchObject({ code: 'a2a_call_failed', retryable: true });
  });

  it('is final for a JSON-RPC refusal of the request, and tried again for a lost connection', () => {
    const refusal = Object.assign(new Error('invalid objective'), { name: 'RequestMalformedError' });
    expect(a2aError('writer', refusal)).toMatchObject({ code: 'a2a_call_refused', retryable: false, message: 'writer: invalid objective' });
    const lost = a2aError('writer', new TypeError('fetch failed'));
    expect(isTierflowError(lost) && lost.retryable).toBe(true);
  });
});
