import { describe, expect, it } from 'vitest';
import { readAssignment } from '../messages/assignment.js';
import { acceptanceCriteriaOf } from '../policy/planner.js';
import { ACCEPTANCE_CRITERIA_KEY, objectiveFileSchema } from './objective.js';

// An objective's due date and acceptance criteria (docs/operations.md#the-objective-file).

describe('an objective file’s deadline_hint', () => {
  it.each([
    ['a date', '2026-03-01', true],
    ['a date-time in UTC', '2026-03-01T17:00:00Z', true],
    ['a date-time with an offset', '2026-03-01T17:00:00+02:00', true],
    ['a date-time with fractions of a second', '2026-03-01T17:00:00.250Z', true],
    ['a date-time without an offset', '2026-03-01T17:00:00', false],
    ['an impossible date', '2026-02-30', false],
    ['words', 'next Friday', false],
    ['a blank', '', false],
  ] as const)('takes %s: %s', (_, deadline_hint, ok) => {
    expect(objectiveFileSchema.safeParse({ objective: 'o', deadline_hint }).success).toBe(ok);
  });

  it('says what it takes when it refuses one', () => {
    const parsed = objectiveFileSchema.safeParse({ objective: 'o', deadline_hint: 'soon' });
    expect(parsed.error?.issues[0]?.message).toMatch(/ISO 8601 date/);
  });
});

describe('an objective file’s acceptance_criteria', () => {
  it.each([
    ['criteria', ['tests pass', 'docs updated'], true],
    ['none at all', [], false],
    ['a blank one', ['tests pass', '  '], false],
    ['not a list', 'tests pass', false],
    ['not text', [1], false],
  ] as const)('takes %s: %s', (_, acceptance_criteria, ok) => {
    expect(objectiveFileSchema.safeParse({ objective: 'o', acceptance_criteria }).success).toBe(ok);
  });

  it('trims each criterion', () => {
    expect(objectiveFileSchema.parse({ objective: 'o', acceptance_criteria: [' tests pass '] }).acceptance_criteria).toEqual(['tests pass']);
  });
});

describe('the root delegation of an objective', () => {
  const root = (objective: Record<string, unknown>) => ({ kind: 'root', root_id: 'r', submitted_at: '2026-01-15T10:30:00Z', objective: { objective: 'o', ...objective } });

  it('carries the deadline hint, and the criteria in task_data, over any task_data gives', () => {
    const { payload } = readAssignment(
      'PROGRESS_MONITOR',
      root({ deadline_hint: '2026-03-01', acceptance_criteria: ['tests pass'], task_data: { language: 'python', [ACCEPTANCE_CRITERIA_KEY]: ['old'] } }),
    );
    expect(payload.deadline_hint).toBe('2026-03-01');
    expect(payload.task_data).toEqual({ language: 'python', [ACCEPTANCE_CRITERIA_KEY]: ['tests pass'] });
    expect(acceptanceCriteriaOf(payload.task_data)).toEqual(['tests pass']);
  });

  it('carries neither when the file gives neither', () => {
    const { payload } = readAssignment('PROGRESS_MONITOR', root({}));
    expect(payload.deadline_hint).toBeNull();
    expect(payload.task_data).toEqual({});
    expect(acceptanceCriteriaOf(payload.task_data)).toEqual([]);
    expect(acceptanceCriteriaOf({ [ACCEPTANCE_CRITERIA_KEY]: 'not a list' })).toEqual([]);
  });
});
