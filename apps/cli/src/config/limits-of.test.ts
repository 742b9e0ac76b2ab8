import { describe, expect, it } from 'vitest';
import { endpointKey } from '@tierflow/fleet';
import { limitProblems, limitsOf } from './limits-of.js';
import { projectConfigSchema } from './config-schema.js';

describe('limitsOf', () => {
  const table = { 'gpt-4o': { rpm: 500 }, 'http://vllm:8000/v1/': { concurrent: 64 } };

  it('gives a model its own entry, under its own name', () => {
    expect(limitsOf('gpt-4o', 'https://api.openai.com/v1', table)).toEqual({ limits: { rpm: 500 } });
  });

  it('gives every model of an endpoint with an entry the endpoint’s limits, kept under the endpoint’s name', () => {
    const shared = { limits: { concurrent: 64, sharedBy: 'http://vllm:8000/v1' } };
    expect(limitsOf('lora-a', 'http://vllm:8000/v1', table)).toEqual(shared);
    expect(limitsOf('lora-b', 'HTTP://VLLM:8000/v1/', table)).toEqual(shared);
  });

  it('gives none where neither the model nor its endpoint has an entry', () => {
    expect(limitsOf('other', 'http://elsewhere:8000/v1', table)).toEqual({});
    expect(limitsOf('other', undefined, table)).toEqual({});
    expect(limitsOf('gpt-4o', undefined, undefined)).toEqual({});
  });

  it('refuses a model with an entry of its own at an endpoint with one, naming both', () => {
    expect(() => limitsOf('gpt-4o', 'http://vllm:8000/v1', table)).toThrow(/gpt-4o.*http:\/\/vllm:8000\/v1/);
  });

  it('reads only http and https URLs as endpoints', () => {
    expect(endpointKey('gpt-4o')).toBeNull();
    expect(endpointKey('file:///tmp/x')).toBeNull();
    expect(endpointKey('https://host/v1//')).toBe('https://host/v1');
  });
});

describe('limitProblems', () => {
  const config = (file: unknown) => projectConfigSchema.parse(file);

  it('names each LLM specialist and planner whose entry conflicts with its endpoint’s, with the endpoint as the workers would pick it', () => {
    const limits = { 'lora-a': { rpm: 60 }, 'planner-model': { rpm: 10 }, 'http://vllm:8000/v1': { concurrent: 8 } };
    const file = config({
      specialists: [{ kind: 'llm', name: 'lora-a' }, { kind: 'llm', name: 'other', model: 'lora-b' }, { kind: 'code-runner' }],
      dispatcher: { decomposer: { kind: 'llm', model: 'planner-model' } },
      models: { baseURL: 'http://vllm:8000/v1', limits },
    });
    expect(limitProblems(file, {})).toEqual([
      'models.limits: lora-a has limits of its own and so has its endpoint http://vllm:8000/v1: keep one of them',
      'models.limits: planner-model has limits of its own and so has its endpoint http://vllm:8000/v1: keep one of them',
    ]);
    // Without the file's endpoint, the environment's is the one the clients call.
    const elsewhere = config({ specialists: [{ kind: 'llm', name: 'lora-a' }], models: { limits } });
    expect(limitProblems(elsewhere, { OPENAI_BASE_URL: 'http://other:1/v1' })).toEqual([]);
    expect(limitProblems(elsewhere, { OPENAI_BASE_URL: 'http://vllm:8000/v1/' })).toHaveLength(1);
    expect(limitProblems(config({}), {})).toEqual([]);
  });
});
