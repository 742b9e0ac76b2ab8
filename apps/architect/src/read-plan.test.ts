import type { Plan } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import { readPlan, revisedPlan } from './read-plan.js';

const plan: Plan = { strategy: 'majority', subtasks: [{ objective: 'a' }, { objective: 'b', specialist_hint: 'x' }, { objective: 'c' }] };

describe('readPlan', () => {
  it.each<[string, Record<string, unknown>, Plan | null]>([
    ['none', { language: 'python' }, null],
    ['a valid plan', { plan }, plan],
  ])('%s', (_name, taskData, expected) => {
    expect(readPlan(taskData)).toEqual(expected);
  });

  it('refuses an invalid plan with every error', () => {
    expect(() => readPlan({ plan: { strategy: 'best', subtasks: 'many' } })).toThrow(
      expect.objectContaining({ code: 'invalid_plan', message: expect.stringMatching(/strategy: .*; \$\.task_data\.plan\.subtasks: /) as unknown }),
    );
  });
});

describe('revisedPlan', () => {
  it.each<[string, number[], Plan['subtasks']]>([
    ['the chosen subtasks, same strategy', [1, 3], [{ objective: 'a' }, { objective: 'c' }]],
    ['one', [2], [{ objective: 'b', specialist_hint: 'x' }]],
    ['indices outside the plan are dropped', [3, 9], [{ objective: 'c' }]],
  ])('%s', (_name, indices, subtasks) => {
    expect(revisedPlan(plan, indices)).toEqual({ strategy: 'majority', subtasks });
  });
});

describe('revisedPlan with dependencies', () => {
  const chain: Plan = {
    strategy: 'all_success',
    subtasks: [{ objective: 'figures' }, { objective: 'draft' }, { objective: 'review', depends_on: [2] }, { objective: 'summarise', depends_on: [3, 1] }],
  };

  it.each<[string, number[], Plan['subtasks']]>([
    [
      'renumbers depends_on to the cut plan',
      [2, 3, 4, 1],
      [{ objective: 'draft' }, { objective: 'review', depends_on: [1] }, { objective: 'summarise', depends_on: [2, 4] }, { objective: 'figures' }],
    ],
    ['a closed cut keeps every dependency', [2, 3], [{ objective: 'draft' }, { objective: 'review', depends_on: [1] }]],
    ['a dependency outside the cut is dropped', [3], [{ objective: 'review', depends_on: [] }]],
  ])('%s', (_name, indices, subtasks) => {
    expect(revisedPlan(chain, indices)).toEqual({ strategy: 'all_success', subtasks });
  });
});
