import type { Plan } from '@tierflow/runtime';
import { ACCEPTANCE_CRITERIA_KEY, type PlanRequest, type Planner } from '@tierflow/runtime/policy';
import { delegated, delegationTo, FakeBeads, fakeContext } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { architectHandler } from './handler.js';

// An objective's due date and acceptance criteria reach the planner (docs/operations.md#the-objective-file).

const plan: Plan = { strategy: 'all_success', subtasks: [{ objective: 'write code' }] };

function planning(payload: Parameters<typeof delegationTo>[2]) {
  const requests: PlanRequest[] = [];
  const planner: Planner = (request) => {
    requests.push(request);
    return Promise.resolve(plan);
  };
  const context = fakeContext(delegationTo('ABSTRACT_ARCHITECT', 'r1.0-0', payload), new FakeBeads('ABSTRACT_ARCHITECT'));
  return { requests, start: () => architectHandler({ planner }).start(context) };
}

describe('an Architect with a planner', () => {
  it('tells the planner when the work is due and what it must satisfy, and hands the hint down', async () => {
    const { requests, start } = planning({
      task_type: 'solve',
      objective: 'binary search',
      deadline_hint: '2026-03-01T17:00:00Z',
      task_data: { [ACCEPTANCE_CRITERIA_KEY]: ['tests pass', 'O(log n)'] },
    });
    const step = delegated(await start());
    expect(requests[0]).toMatchObject({ deadlineHint: '2026-03-01T17:00:00Z', acceptanceCriteria: ['tests pass', 'O(log n)'] });
    expect(step.children[0]).toMatchObject({ deadline_hint: '2026-03-01T17:00:00Z', task_data: { [ACCEPTANCE_CRITERIA_KEY]: ['tests pass', 'O(log n)'], plan } });
  });

  it('tells it of neither when the objective gives neither', async () => {
    const { requests, start } = planning({ task_type: 'solve', objective: 'binary search' });
    const step = delegated(await start());
    expect(requests[0]).toMatchObject({ deadlineHint: null, acceptanceCriteria: [] });
    expect(step.children[0]).not.toHaveProperty('deadline_hint');
  });
});
