import type { DelegationPayload } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import { checkedCompositions, knownSpecialists, planOf } from './plan-of.js';

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

describe('compositions (docs/protocol.md#attestations)', () => {
  const known = knownSpecialists({ code: ['python-lora', 'sql-lora'], '*': ['sim'] });
  const withComposition = (composition: unknown, inTaskData = false) => ({
    objective: 'x',
    task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 'a' }, inTaskData ? { objective: 'b', task_data: { composition } } : { objective: 'b', composition }] } },
  });

  it.each<[string, unknown, boolean]>([
    ['two known domains summing to 100', { 'python-lora': 60, 'sql-lora': 40 }, false],
    ['sim, always known', { sim: 100 }, false],
    ['one in task_data', { 'python-lora': 100 }, true],
  ])('takes %s', (_name, composition, inTaskData) => {
    expect(planOf(withComposition(composition, inTaskData), known).subtasks).toHaveLength(2);
  });

  it.each<[string, unknown, boolean, RegExp]>([
    ['shares summing to 90', { 'python-lora': 60, 'sql-lora': 30 }, false, /subtask 2: the shares sum to 90 %, not 100 %/],
    ['a share of 0', { 'python-lora': 100, 'sql-lora': 0 }, false, /subtask 2: sql-lora: a share must be above 0 %/],
    ['an unknown domain', { 'python-lora': 50, 'rust-lora': 50 }, false, /subtask 2: rust-lora: not a known specialist/],
    ['a bad one in task_data', { 'python-lora': 50 }, true, /subtask 2: the shares sum to 50 %/],
  ])('refuses %s as a permanent composition_invalid, with the reason', (_name, composition, inTaskData, reason) => {
    const call = () => planOf(withComposition(composition, inTaskData), known);
    expect(call).toThrow(expect.objectContaining({ code: 'composition_invalid', retryable: false }));
    expect(call).toThrow(reason);
  });

  it('checks the shares alone without the known specialists, and a decomposed plan too', () => {
    expect(() => checkedCompositions({ strategy: 'all_success', subtasks: [{ objective: 'a', composition: { anything: 100 } }] })).not.toThrow();
    expect(() => checkedCompositions({ strategy: 'all_success', subtasks: [{ objective: 'a', composition: { anything: 100 } }] }, known)).toThrow(/anything: not a known specialist/);
  });
});
