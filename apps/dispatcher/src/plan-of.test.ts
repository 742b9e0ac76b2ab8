import type { DelegationPayload } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import { planOf } from './plan-of.js';

const plan: Plan = {
  strategy: 'majority',
  subtasks: [{ objective: 'write it' }, { objective: 'test it', task_type: 'test', specialist_hint: 'test-lora', timeout_ms: 5_000 }],
};

describe('planOf', () => {
  it.each<[string, DelegationPayload['task_data'], Plan]>([
    ['the plan it carries', { plan, language: 'python' }, plan],
    [
      'one subtask of the whole objective, task_type from task_data',
      { task_type: 'execute_code', language: 'python' },
      { strategy: 'all_success', subtasks: [{ objective: 'solve X', task_type: 'execute_code', task_data: { task_type: 'execute_code', language: 'python' } }] },
    ],
    ['general when task_data has no task_type', {}, { strategy: 'all_success', subtasks: [{ objective: 'solve X', task_type: 'general', task_data: {} }] }],
    ['general when task_data.task_type is not a string', { task_type: 7 }, { strategy: 'all_success', subtasks: [{ objective: 'solve X', task_type: 'general', task_data: { task_type: 7 } }] }],
  ])('%s', (_name, taskData, expected) => {
    expect(planOf({ objective: 'solve X', task_data: taskData })).toEqual(expected);
  });

  it('refuses an invalid plan with every error, as a permanent invalid_plan', () => {
    const call = () => planOf({ objective: 'x', task_data: { plan: { strategy: 'fastest', subtasks: [{ objective: '' }] } } });
    expect(call).toThrow(expect.objectContaining({ code: 'invalid_plan', retryable: false }));
    expect(call).toThrow(/\$\.task_data\.plan\.strategy: .*; \$\.task_data\.plan\.subtasks\[0\]\.objective: /);
  });
});
