import type { Plan } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import type { ChildOutcomeEntry } from './child-outcomes.js';
import { avoidedSpecialists, revisionContextOf, withAvoided, type RevisionInput } from './revision-context.js';

const plan: Plan = {
  strategy: 'all_success',
  subtasks: [{ objective: 'draft', task_type: 'write' }, { objective: 'review', depends_on: [1], avoid_specialists: ['old'] }, { objective: 'figures' }],
};
const entry = (subtask_index: number, status: ChildOutcomeEntry['status'], extra: Partial<ChildOutcomeEntry> = {}): ChildOutcomeEntry => ({
  id: `d.0-${subtask_index}`,
  status,
  specialist: `s${subtask_index}`,
  confidence: 0.5,
  subtask_index,
  ...extra,
});
const input: RevisionInput = {
  round: 1,
  plan,
  ran: plan,
  redo: [1, 2],
  kept: [{ message_id: 'd.0-3', specialist: 's3', status: 'success', confidence: 0.9, subtask_index: 3, summary: 'drew them' }],
  current: [entry(2, 'failed', { error_type: 'timeout', summary: 'too slow', attempts: 2, tried: ['a', 's2'] }), entry(1, 'success'), entry(3, 'success')],
  delegated: [1, 2, 3],
  outcome: { error_type: 'majority_failed', error_detail: 'detail', summary: 'summary' },
};

describe('revisionContextOf', () => {
  it('tells each failed subtask with its error, words, specialists and attempts, and what is kept (not what goes again)', () => {
    expect(revisionContextOf(input)).toEqual({
      round: 1,
      plan,
      redo: [1, 2],
      failed: [{ subtask_index: 2, description: 'review', task_type: null, specialist: 's2', tried: ['a', 's2'], error_type: 'timeout', summary: 'too slow', attempts: 2 }],
      succeeded: [{ subtask_index: 3, specialist: 's3', summary: 'drew them' }],
    });
  });

  it('reads an older Dispatcher’s entries: the specialist as the one tried, once, the status as the words', () => {
    const context = revisionContextOf({ ...input, current: [entry(2, 'timeout')] });
    expect(context.failed).toEqual([{ subtask_index: 2, description: 'review', task_type: null, specialist: 's2', tried: ['s2'], error_type: null, summary: 'ended timeout', attempts: 1 }]);
  });

  it('without child outcomes, each delegated subtask failed with the outcome’s error, its specialist unknown', () => {
    const context = revisionContextOf({ ...input, current: null, delegated: [2, 1], kept: [] });
    expect(context.failed.map((failure) => [failure.subtask_index, failure.specialist, failure.error_type, failure.summary, failure.attempts])).toEqual([
      [1, '', 'majority_failed', 'detail', 0],
      [2, '', 'majority_failed', 'detail', 0],
    ]);
    expect(context.succeeded).toEqual([]);
  });
});

describe('avoidedSpecialists and withAvoided', () => {
  it('adds every specialist a failed subtask was sent to to those it avoided already, and sets them on the plan', () => {
    const failed = revisionContextOf(input).failed;
    const avoid = avoidedSpecialists(plan, failed);
    expect([...avoid]).toEqual([[2, ['old', 'a', 's2']]]);
    expect(withAvoided(plan, avoid).subtasks.map((subtask) => subtask.avoid_specialists)).toEqual([undefined, ['old', 'a', 's2'], undefined]);
  });

  it('avoids nobody for a failure of no known specialist, and leaves the plan as it was', () => {
    const failed = revisionContextOf({ ...input, plan: null, ran: { strategy: 'all_success', subtasks: [{ objective: 'x' }] }, current: null, delegated: [1] }).failed;
    const whole: Plan = { strategy: 'all_success', subtasks: [{ objective: 'x' }] };
    expect(withAvoided(whole, avoidedSpecialists(whole, failed))).toBe(whole);
  });
});
