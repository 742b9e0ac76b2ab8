import { describe, expect, it } from 'vitest';
import { issueLines, pathText } from './config-issues.js';
import { projectConfigSchema } from './config-schema.js';

const problems = (value: unknown): string[] => {
  const parsed = projectConfigSchema.safeParse(value);
  return parsed.success ? [] : issueLines(parsed.error.issues);
};

describe('issueLines', () => {
  it.each<[string, unknown, string[]]>([
    ['a good file', { specialists: [{ kind: 'llm', name: 'python-lora' }], routing: { code: ['python-lora', 'sim'] } }, []],
    ['an empty file', {}, []],
    ['a field of the wrong type in a declared specialist', { specialists: [{ kind: 'llm', name: 3 }] }, ['specialists[0].name: Invalid input: expected string, received number']],
    ['an unknown kind', { specialists: [{ kind: 'gpu' }] }, ["specialists[0].kind: Invalid discriminator value. Expected 'llm' | 'module' | 'code-runner' | 'checked' | 'a2a'"]],
    ['an empty route', { routing: { code: [] } }, ['routing.code: a route needs at least one specialist']],
    ['routing settings beside the routes', { routing: { code: ['sim'], mode: 'shadow', objective: { optimize: 'latency', weight: 0.3 }, exploration: 0.1 } }, []],
    [
      'bad routing settings, each named',
      { routing: { mode: 'learnt', objective: 'speed', exploration: 2, code: 'sim' } },
      [
        'routing.mode: must be fixed, learned or shadow',
        'routing.objective: must be success, cost, latency, or { optimize, weight } with a weight from 0 to 1',
        'routing.exploration: must be from 0 to 1',
        'routing.code: Invalid input: expected array, received string',
      ],
    ],
    ['an objective weight out of range', { routing: { objective: { optimize: 'cost', weight: 3 } } }, ['routing.objective.weight: must be from 0 to 1']],
    ['routing that is not an object', { routing: ['sim'] }, ['routing: must be an object: task type → [specialist, ...alternates], and mode, objective, exploration']],
    ['a planner of an unknown kind', { architect: { planner: { kind: 'oracle' } } }, ["architect.planner.kind: Invalid discriminator value. Expected 'llm' | 'module'"]],
    ['a price below zero', { models: { prices: { m: { input_usd_per_mtok: -1, output_usd_per_mtok: 1 } } } }, ['models.prices.m.input_usd_per_mtok: Too small: expected number to be >=0']],
    ['a misspelt top-level field', { specialist: [] }, ['(the file): Unrecognized key: "specialist"']],
    ['an interceptor of an unknown kind', { interceptors: [{ kind: 'redact' }] }, ["interceptors[0].kind: Invalid discriminator value. Expected 'evidence-grades' | 'tone-isolation' | 'module'"]],
    [
      'a minimum that is not a grade',
      { interceptors: [{ kind: 'evidence-grades', minimum: 'GOLD' }] },
      ['interceptors[0].minimum: Invalid option: expected one of "NOBEL"|"PR"|"IV"|"PP"|"HEUR"|"DISC"'],
    ],
  ])('%s', (_name, value, expected) => {
    expect(problems(value)).toEqual(expected);
  });

  it('takes a specialist object with a run function as it is', () => {
    expect(problems({ specialists: [{ name: 'x', version: '1', run: () => Promise.resolve({ summary: '', confidence: 1 }) }] })).toEqual([]);
  });
});

describe('pathText', () => {
  it('writes paths as a reader of the file points at them', () => {
    expect(pathText(['specialists', 2, 'model'])).toBe('specialists[2].model');
    expect(pathText([])).toBe('');
  });
});
