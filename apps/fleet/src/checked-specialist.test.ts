import { describe, expect, it } from 'vitest';
import { checkedSpecialist, codeIn } from './checked-specialist.js';
import { defineSpecialist, type SpecialistInput, type SpecialistResult } from './specialist.js';
import { specialistInput } from './test-input.js';

const writer = (result: SpecialistResult) => defineSpecialist({ name: 'w', version: '1', run: () => Promise.resolve(result) });
const checks: SpecialistInput[] = [];
const checker = defineSpecialist({
  name: 'c',
  version: '1',
  run: (input) => {
    checks.push(input);
    const code = (input.taskData['candidate'] as { code: string }).code;
    return Promise.resolve(
      code.includes('good')
        ? { summary: '2/2 tests passed', confidence: 1, artifacts: [{ artifact_type: 'test_result', content: '{"passed":2}' }] }
        : { status: 'failed', summary: '0/2 tests passed', confidence: 0, error_type: 'tests_failed', error_detail: 'case 1', recoverable: false },
    );
  },
});

describe('checkedSpecialist', () => {
  it('passes the candidate to the checker with the delegation, and answers with the verdict over both artifacts', async () => {
    const checked = checkedSpecialist({
      name: 'writer-a',
      writer: writer({ summary: 'wrote it', confidence: 0.7, artifacts: [{ artifact_type: 'llm_output', content: 'def good(): ...' }], resources_used: { model: 'm' } }),
      checker,
    });
    const result = await checked.run(specialistInput({ taskData: { tests: [], candidate: { language: 'python', entry: 'good' } } }));
    expect(checks.at(-1)?.taskData).toEqual({ tests: [], candidate: { language: 'python', entry: 'good', code: 'def good(): ...' } });
    expect(result).toMatchObject({ summary: 'wrote it — 2/2 tests passed', confidence: 1, resources_used: { model: 'm', checker: {} } });
    expect(result.artifacts?.map((artifact) => artifact.artifact_type)).toEqual(['llm_output', 'test_result']);
  });

  it('fails with the checker when the candidate does not pass', async () => {
    const result = await checkedSpecialist({ name: 'writer-b', writer: writer({ summary: 'wrote it', confidence: 0.9, artifacts: [{ artifact_type: 'code', content: 'bad' }] }), checker }).run(
      specialistInput(),
    );
    expect(result).toMatchObject({ status: 'failed', error_type: 'tests_failed', confidence: 0 });
  });

  it('answers as the writer when it wrote nothing to check', async () => {
    const refused = { status: 'failed' as const, summary: 'cannot', confidence: 0, error_type: 'model_refused' };
    const before = checks.length;
    expect(await checkedSpecialist({ name: 'x', writer: writer(refused), checker }).run(specialistInput())).toEqual(refused);
    expect(checks).toHaveLength(before);
  });
});

describe('codeIn', () => {
  it.each([
    ['plain code', 'def f(): pass', 'def f(): pass'],
    ['a fenced block', '```python\ndef f():\n    pass\n```', 'def f():\n    pass'],
    ['a JSON string of fenced code', JSON.stringify('```js\nconst f = 1;\n```'), 'const f = 1;'],
    ['a JSON object with code', JSON.stringify({ code: 'function f() {}', notes: 'x' }), 'function f() {}'],
  ])('reads %s', (_name, content, code) => {
    expect(codeIn({ artifact_type: 'llm_output', content })).toBe(code);
  });
});
