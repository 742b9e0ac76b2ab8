import { isTierflowError } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { parseCodeRunnerTask } from './task-data.js';

const tests = [{ args: [1, 2], expected: 3 }];

function refusal(taskData: Record<string, unknown>): string {
  try {
    parseCodeRunnerTask(taskData);
  } catch (error) {
    if (isTierflowError(error) && !error.retryable && error.code === 'invalid_task_data') return error.message;
    throw error;
  }
  throw new Error('accepted');
}

describe('parseCodeRunnerTask', () => {
  it('reads code, entry and tests; javascript by default; leaves other fields alone', () => {
    expect(parseCodeRunnerTask({ code: 'x', entry: 'add', tests, note: 'for the architect' })).toEqual({ language: 'javascript', code: 'x', entry: 'add', tests });
  });

  it('takes the code, language and entry from task_data.candidate when code is absent', () => {
    expect(parseCodeRunnerTask({ candidate: { code: 'def f(): pass', language: 'python', entry: 'f' }, tests })).toMatchObject({ language: 'python', code: 'def f(): pass', entry: 'f' });
    // Top-level fields win.
    expect(parseCodeRunnerTask({ candidate: { code: 'y', entry: 'g', language: 'python' }, entry: 'h', language: 'javascript', tests })).toMatchObject({
      language: 'javascript',
      code: 'y',
      entry: 'h',
    });
  });

  it('names each bad field', () => {
    expect(refusal({ code: 'x', entry: 'add', tests: [] })).toContain('task_data.tests:');
    expect(refusal({ code: 'x', entry: 'add', tests: [{ args: 'nope', expected: 1 }] })).toContain('task_data.tests.0.args');
    expect(refusal({ code: 'x', entry: 'add', tests: [{ args: [], expected: 1, extra: true }] })).toContain('task_data.tests.0');
    expect(refusal({ code: 'x', entry: 'add', tests: Array.from({ length: 101 }, () => tests[0]) })).toContain('task_data.tests');
    expect(refusal({ code: 'x', entry: 'add', language: 'ruby', tests })).toContain('task_data.language');
    expect(refusal({ code: 'x', entry: 'a b', tests })).toContain('task_data.entry: must be a function name');
    expect(refusal({ entry: 'add', tests })).toContain('task_data.code: required');
    expect(refusal({ code: 'x', tests })).toContain('task_data.entry: required');
    expect(refusal({ candidate: { code: '' }, entry: 'f', tests })).toContain('task_data.candidate.code');
  });
});
