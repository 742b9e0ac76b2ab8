import { describe, expect, it } from 'vitest';
import { runRecords, strategyOf, taskTypeOf, type RunFacts } from './records.js';

describe('taskTypeOf and strategyOf', () => {
  it.each<[Record<string, unknown>, string, string | null]>([
    [{}, 'objective', null],
    [{ task_type: 'execute_code' }, 'execute_code', null],
    [{ task_type: '' }, 'objective', null],
    [{ task_type: 3 }, 'objective', null],
    [{ plan: { strategy: 'majority', subtasks: [{ objective: 'a' }] } }, 'objective', 'majority'],
    [{ plan: { strategy: 'majority' } }, 'objective', null],
  ])('%j → %s, %s', (taskData, taskType, strategy) => {
    expect(taskTypeOf(taskData)).toBe(taskType);
    expect(strategyOf(taskData)).toBe(strategy);
  });
});

describe('runRecords', () => {
  const facts: RunFacts = { status: 'success', confidence: 0.9, taskType: 'objective', strategy: null, resets: 1, startedAt: 1_000, now: 4_500 };

  it.each<[string, Partial<RunFacts>, object]>([
    [
      'without a plan',
      {},
      {
        run: { status: 'success', confidence: 0.9, duration_ms: 3_500, resets: 1, finished_at: '1970-01-01T00:00:04.500Z' },
        history: { status: 'success', confidence: 0.9, task_type: 'objective' },
      },
    ],
    [
      'with a plan',
      { strategy: 'all_success', status: 'partial' },
      {
        history: { status: 'partial', confidence: 0.9, task_type: 'objective', strategy: 'all_success' },
      },
    ],
  ])('%s', (_name, override, expected) => {
    const records = runRecords({ ...facts, ...override });
    expect(records).toMatchObject(expected);
    if (!override.strategy) expect(records.history).not.toHaveProperty('strategy');
  });
});
