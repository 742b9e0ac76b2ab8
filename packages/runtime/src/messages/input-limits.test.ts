import { describe, expect, it } from 'vitest';
import { InvalidJobError, readAssignment } from './assignment.js';
import { checkObjectiveSize, DEFAULT_INPUT_LIMITS, InputTooLargeError, subtaskCount, tooManyBytes } from './input-limits.js';

const limits = { maxObjectiveBytes: 200, maxSubtasks: 2 };
const plan = (count: number): Record<string, unknown> => ({ plan: { strategy: 'all_success', subtasks: Array.from({ length: count }, () => ({ objective: 's' })) } });

function refusal(run: () => void): InputTooLargeError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InputTooLargeError);
    return error as InputTooLargeError;
  }
  throw new Error('accepted');
}

describe('subtaskCount', () => {
  it('counts task_data.plan.subtasks, whatever else is there, and 0 without a plan', () => {
    expect(subtaskCount(plan(3))).toBe(3);
    expect(subtaskCount({ plan: { subtasks: ['not', 'subtasks'] } })).toBe(2);
    for (const none of [undefined, null, 'x', [], {}, { plan: null }, { plan: [1, 2] }, { plan: { subtasks: 'many' } }]) expect(subtaskCount(none)).toBe(0);
  });
});

describe('checkObjectiveSize', () => {
  it('defaults to 1 MiB and 256 subtasks', () => {
    expect(DEFAULT_INPUT_LIMITS).toEqual({ maxObjectiveBytes: 1_048_576, maxSubtasks: 256 });
  });

  it('takes an objective at its limits', () => {
    expect(() => checkObjectiveSize({ objective: 'x', task_data: plan(2) }, limits)).not.toThrow();
    const exactly = { objective: 'x'.repeat(200 - '{"objective":""}'.length) };
    expect(Buffer.byteLength(JSON.stringify(exactly))).toBe(200);
    expect(() => checkObjectiveSize(exactly, limits)).not.toThrow();
  });

  it('refuses one subtask too many, before looking at what they hold', () => {
    const error = refusal(() => checkObjectiveSize({ task_data: plan(3) }, limits));
    expect(error).toMatchObject({ code: 'input_too_large', limit: 'maxSubtasks', retryable: false });
    expect(error.message).toBe('the objective has 3 subtasks, more than the limit of 2 (TIERFLOW_MAX_SUBTASKS raises it)');
  });

  it('refuses one byte too many, counting UTF-8 bytes of its JSON', () => {
    const error = refusal(() => checkObjectiveSize({ objective: `a${'é'.repeat(92)}` }, limits));
    expect(error).toMatchObject({ code: 'input_too_large', limit: 'maxObjectiveBytes' });
    expect(error.message).toBe('the objective is 201 bytes as JSON, more than the limit of 200 bytes (TIERFLOW_MAX_OBJECTIVE_BYTES raises it)');
  });

  it('leaves what cannot be measured to validation', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => checkObjectiveSize(cycle, limits)).not.toThrow();
    expect(() => checkObjectiveSize({ n: 1n }, limits)).not.toThrow();
  });

  it('says how big a file or a stream was', () => {
    expect(tooManyBytes('big.json', 300, limits).message).toBe('big.json is 300 bytes, more than the limit of 200 bytes (TIERFLOW_MAX_OBJECTIVE_BYTES raises it)');
    expect(tooManyBytes('<stdin>', null, limits).message).toBe('<stdin> is more than the limit of 200 bytes (TIERFLOW_MAX_OBJECTIVE_BYTES raises it)');
  });
});

describe('a tier given oversized work', () => {
  const root = (count: number) => ({ kind: 'root', root_id: 'r', submitted_at: '2025-01-15T10:30:00Z', objective: { objective: 'o', task_data: plan(count) } });

  it('refuses it as an invalid job when it knows the limits', () => {
    expect(() => readAssignment('PROGRESS_MONITOR', root(3), limits)).toThrow(InvalidJobError);
    expect(() => readAssignment('PROGRESS_MONITOR', root(3), limits)).toThrow('input_too_large: the objective has 3 subtasks, more than the limit of 2');
    expect(() => readAssignment('ABSTRACT_ARCHITECT', { payload: { task_data: plan(3) } }, limits)).toThrow('input_too_large: the delegation has 3 subtasks');
    expect(readAssignment('PROGRESS_MONITOR', root(2), limits).id).toBe('r');
    expect(readAssignment('PROGRESS_MONITOR', root(3)).id).toBe('r');
  });
});
