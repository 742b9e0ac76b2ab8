import { describe, expect, it } from 'vitest';
import { specialistInput } from '../test-input.js';
import { answerFormat, llmMessages, readAnswer } from './llm-prompt.js';

describe('llmMessages', () => {
  it('puts the objective, task type, constraints, task data and the shared context its references hold in the user message', () => {
    const input = specialistInput({ constraints: ['O(log n)'], taskData: { language: 'python' }, contextRefs: ['beads:task/r1/constraints', 'beads:task/r1/gone'] });
    const [system, user] = llmMessages(input, undefined, { 'beads:task/r1/constraints': ['O(log n)'], 'beads:task/r1/gone': null });
    expect(system?.role).toBe('system');
    expect(user?.content).toBe(
      'Objective: Write binary search function\n\nTask type: execute_code\n\nConstraints:\n- O(log n)\n\nTask data (JSON):\n{"language":"python"}\n\nShared context:\nbeads:task/r1/constraints: ["O(log n)"]',
    );
  });

  it('cuts a long shared value, so the task is not crowded out', () => {
    const [, user] = llmMessages(specialistInput(), undefined, { 'beads:task/r1/big': 'x'.repeat(10_000) });
    const content = typeof user?.content === 'string' ? user.content : '';
    expect(content.length).toBeLessThan(4_200);
    expect(content).toMatch(/x…$/);
  });
});

describe('answerFormat', () => {
  it('holds output to the expected-output schema, when there is one', () => {
    const schema = { type: 'object', required: ['code'] };
    expect(answerFormat(schema).json_schema.schema).toMatchObject({ properties: { output: schema }, required: ['summary', 'confidence', 'output'] });
    expect(answerFormat(null).json_schema.schema).toMatchObject({ properties: { output: {} } });
  });
});

describe('readAnswer', () => {
  it('reads the JSON asked for', () => {
    expect(readAnswer('{"summary":"wrote it","confidence":0.9,"output":{"code":"x"}}', 0.5)).toEqual({ summary: 'wrote it', confidence: 0.9, output: { code: 'x' } });
  });

  it('takes plain text as the output, its first line as the summary, and the default confidence', () => {
    expect(readAnswer('def f():\n  pass', 0.4)).toEqual({ summary: 'def f():', confidence: 0.4, output: 'def f():\n  pass' });
    expect(readAnswer(null, 0.4)).toEqual({ summary: '(the model answered nothing)', confidence: 0.4, output: '' });
  });

  it('replaces a confidence outside 0 to 1 by the default', () => {
    expect(readAnswer('{"summary":"s","confidence":7,"output":1}', 0.5).confidence).toBe(0.5);
  });
});
