import { describe, expect, it } from 'vitest';
import { projectConfigSchema, type ProjectConfigInput } from './config-schema.js';
import { defaultEndpointCallers, defaultEndpointWarning } from './default-endpoint.js';

const config = (input: ProjectConfigInput) => projectConfigSchema.parse(input);
const writer = { kind: 'llm', name: 'writer' } as const;
const planner = { kind: 'llm', model: 'planner-model' } as const;

describe('model callers without an endpoint', () => {
  it.each<[string, ProjectConfigInput, NodeJS.ProcessEnv, string[]]>([
    ['an LLM specialist, nothing configured', { specialists: [writer] }, {}, ['specialist writer']],
    [
      'an LLM planner and decomposer too',
      { specialists: [writer], architect: { planner }, dispatcher: { decomposer: planner } },
      {},
      ['specialist writer', 'architect.planner', 'dispatcher.decomposer'],
    ],
    ['OPENAI_BASE_URL set', { specialists: [writer] }, { OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' }, []],
    ['the models section’s baseURL', { specialists: [writer], models: { baseURL: 'http://127.0.0.1:8000/v1' } }, {}, []],
    [
      'the specialist’s own baseURL',
      {
        specialists: [
          { ...writer, baseURL: 'http://127.0.0.1:8000/v1' },
          { kind: 'llm', name: 'other' },
        ],
      },
      {},
      ['specialist other'],
    ],
    ['no model callers', { specialists: [{ kind: 'code-runner' }] }, {}, []],
  ])('%s', (_name, input, env, callers) => {
    expect(defaultEndpointCallers(config(input), env)).toEqual(callers);
  });

  it('warns in one line naming the callers and the public endpoint, and not at all without callers', () => {
    expect(defaultEndpointWarning(['specialist writer'])).toBe(
      'warning: no model endpoint configured (no baseURL in the project file, no OPENAI_BASE_URL): specialist writer will call the public default endpoint, https://api.openai.com/v1',
    );
    expect(defaultEndpointWarning([])).toBeNull();
  });
});
