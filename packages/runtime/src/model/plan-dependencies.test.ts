import { validateWith, type AggregationStrategy } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { checkedPlan } from '../policy/planner.js';
import { objectiveFileSchema } from './objective.js';
import { dependencyEdges, dependencyProblems, withDependencies, type DependentPlan } from './plan-dependencies.js';

/** A plan of as many subtasks as `deps` has entries, each depending on the indices given (none for null). */
function plan(deps: (number[] | null)[], strategy: AggregationStrategy = 'all_success'): DependentPlan & { subtasks: { objective: string; depends_on?: number[] }[] } {
  return { strategy, subtasks: deps.map((dependsOn, i) => ({ objective: `step ${i + 1}`, ...(dependsOn ? { depends_on: dependsOn } : {}) })) };
}

describe('dependencyProblems', () => {
  it.each<[string, DependentPlan]>([
    ['no dependencies', plan([null, null])],
    ['a chain', plan([null, [1], [2]])],
    ['a diamond', plan([null, [1], [1], [3, 2]])],
    ['an empty list', plan([[], null])],
    ['an empty list under first_success', plan([[], null], 'first_success')],
    ['dependencies listed out of plan order', plan([[3], null, null])],
  ])('accepts %s', (_name, input) => {
    expect(dependencyProblems(input)).toEqual([]);
  });

  it.each<[string, DependentPlan, { path: (string | number)[]; rule: string; message: string }[]]>([
    [
      'an index out of range, either side',
      plan([null, [3, 0]]),
      [
        { path: ['subtasks', 1, 'depends_on', 0], rule: 'dependency_out_of_range', message: 'subtask 3 does not exist: the plan has subtasks 1 to 2' },
        { path: ['subtasks', 1, 'depends_on', 1], rule: 'dependency_out_of_range', message: 'subtask 0 does not exist: the plan has subtasks 1 to 2' },
      ],
    ],
    ['a subtask depending on itself', plan([null, [2]]), [{ path: ['subtasks', 1, 'depends_on', 0], rule: 'dependency_on_itself', message: 'subtask 2 cannot depend on itself' }]],
    ['an index given twice', plan([null, [1, 1]]), [{ path: ['subtasks', 1, 'depends_on', 1], rule: 'dependency_repeated', message: 'subtask 1 is listed more than once' }]],
    [
      'a cycle of two',
      plan([[2], [1]]),
      [{ path: ['subtasks', 0, 'depends_on', 0], rule: 'dependency_cycle', message: 'subtasks 1 and 2 wait for each other in a cycle (1 depends on 2, 2 on 1), so none of them could start' }],
    ],
    [
      'a cycle of three, told from its lowest subtask',
      plan([null, [4], [2], [1, 3]]),
      [
        {
          path: ['subtasks', 1, 'depends_on', 0],
          rule: 'dependency_cycle',
          message: 'subtasks 2, 4 and 3 wait for each other in a cycle (2 depends on 4, 4 on 3, 3 on 2), so none of them could start',
        },
      ],
    ],
    [
      'two separate cycles',
      plan([[2], [1], [4], [3]]),
      [
        expect.objectContaining({ rule: 'dependency_cycle', message: expect.stringContaining('subtasks 1 and 2') as unknown }),
        expect.objectContaining({ rule: 'dependency_cycle', message: expect.stringContaining('subtasks 3 and 4') as unknown }),
      ] as never,
    ],
    [
      'dependencies under first_success',
      plan([null, [1]], 'first_success'),
      [
        {
          path: ['subtasks', 1, 'depends_on'],
          rule: 'dependency_in_race',
          message: 'first_success races its subtasks, so none can wait for another; dependencies are taken under all_success, any_success, majority',
        },
      ],
    ],
  ])('refuses %s', (_name, input, problems) => {
    expect(dependencyProblems(input)).toEqual(problems);
  });
});

describe('the plan schema', () => {
  it('names each dependency problem at its path, as a plan is read', () => {
    expect(() => checkedPlan(plan([null, [5], [3]]), '$.task_data.plan')).toThrow(
      expect.objectContaining({
        code: 'invalid_plan',
        message:
          'invalid plan: $.task_data.plan.subtasks[1].depends_on[0]: subtask 5 does not exist: the plan has subtasks 1 to 3; ' +
          '$.task_data.plan.subtasks[2].depends_on[0]: subtask 3 cannot depend on itself',
      }),
    );
  });

  it('checks an objective file the same way, with the rule as the error code', () => {
    const result = validateWith(objectiveFileSchema, { objective: 'o', task_data: { plan: plan([[2], [1]]) } });
    expect(result).toMatchObject({ ok: false, errors: [{ path: '$.task_data.plan.subtasks[0].depends_on[0]', code: 'dependency_cycle' }] });
  });

  it('takes a plan with dependencies as it is', () => {
    expect(checkedPlan(plan([null, [1]]), '$plan').subtasks[1]).toEqual({ objective: 'step 2', depends_on: [1] });
  });
});

describe('the dependency graph', () => {
  const diamond = plan([null, [1], [1], [3, 2], null]);

  it('lists its edges from the work to the subtask that takes it', () => {
    expect(dependencyEdges(diamond)).toEqual([
      [1, 2],
      [1, 3],
      [3, 4],
      [2, 4],
    ]);
  });

  it.each<[number[], number[]]>([
    [[4], [1, 2, 3, 4]],
    [[2], [1, 2]],
    [
      [5, 3],
      [1, 3, 5],
    ],
    [[], []],
  ])('closes %j over what it depends on: %j', (indices, closed) => {
    expect(withDependencies(diamond, indices)).toEqual(closed);
  });
});
