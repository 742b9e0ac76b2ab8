import { TierflowError } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { agentAttributes, chatRequestAttributes, chatResponseAttributes, errorTypeOf, providerOf, serverOf } from './attributes.js';

describe('agentAttributes', () => {
  it('names the tier by its slug, with a stable id, and the run as the conversation', () => {
    expect(agentAttributes({ tier: 'ABSTRACT_ARCHITECT', rootId: 'r1' }, 'v1.41')).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'architect',
      'gen_ai.agent.id': 'tierflow.architect',
      'gen_ai.conversation.id': 'r1',
    });
  });

  it('names a Fleet leaf by its specialist, and leaves the id off in the latest conventions', () => {
    expect(agentAttributes({ tier: 'SPECIALIZED_FLEET', rootId: 'r1', specialist: 'llm-writer' }, 'v1.41')).toMatchObject({ 'gen_ai.agent.name': 'llm-writer', 'gen_ai.agent.id': 'llm-writer' });
    expect(agentAttributes({ tier: 'SPECIALIZED_FLEET', rootId: 'r1', specialist: null }, 'v1.41')).toMatchObject({ 'gen_ai.agent.name': 'fleet', 'gen_ai.agent.id': 'tierflow.fleet' });
    expect(agentAttributes({ tier: 'SPECIALIZED_FLEET', rootId: 'r1', specialist: 'llm-writer' }, 'latest')).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'llm-writer',
      'gen_ai.conversation.id': 'r1',
    });
  });
});

describe('providerOf and serverOf', () => {
  it.each([
    ['https://api.openai.com/v1', undefined, 'openai'],
    ['https://my-res.openai.azure.com/openai', undefined, 'azure.ai.openai'],
    ['https://api.groq.com/openai/v1', undefined, 'groq'],
    ['https://api.deepseek.com', undefined, 'deepseek'],
    ['https://generativelanguage.googleapis.com/v1beta/openai', undefined, 'gcp.gemini'],
    ['http://127.0.0.1:8000/v1', undefined, 'openai'],
    ['http://vllm.internal:8000/v1', 'vllm-house', 'vllm-house'],
    ['not a url', undefined, 'openai'],
  ] as const)('%s (configured %s) is %s', (endpoint, configured, provider) => {
    expect(providerOf(endpoint, configured)).toBe(provider);
  });

  it.each([
    ['http://127.0.0.1:8000/v1', { address: '127.0.0.1', port: 8000 }],
    ['https://api.openai.com/v1', { address: 'api.openai.com', port: 443 }],
    ['http://models.local/v1', { address: 'models.local', port: 80 }],
    ['http://[::1]:9000/v1', { address: '::1', port: 9000 }],
    ['an endpoint whose URL does not parse', null],
  ] as const)('%s is served at %j', (endpoint, server) => {
    expect(serverOf(endpoint)).toEqual(server);
  });
});

describe('chatRequestAttributes', () => {
  it('takes the operation, provider, model, the request parameters the conventions name, and the server', () => {
    const params = { max_tokens: 256, temperature: 0.2, top_p: 0.9, seed: 7, stop: ['END'], response_format: { type: 'json_schema' }, user: 'x', logit_bias: {} };
    expect(chatRequestAttributes({ endpoint: 'http://127.0.0.1:8000/v1', model: 'writer', params, purpose: 'specialist', replayed: false })).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'writer',
      'gen_ai.request.max_tokens': 256,
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.top_p': 0.9,
      'gen_ai.request.seed': 7,
      'gen_ai.request.stop_sequences': ['END'],
      'gen_ai.output.type': 'json',
      'server.address': '127.0.0.1',
      'server.port': 8000,
      'tierflow.model_call.purpose': 'specialist',
    });
  });

  it('marks a replayed call', () => {
    expect(chatRequestAttributes({ endpoint: 'http://h/v1', model: 'm', params: {}, purpose: 'planner', replayed: true })).toMatchObject({
      'tierflow.replayed': true,
      'tierflow.model_call.purpose': 'planner',
    });
  });
});

describe('chatResponseAttributes', () => {
  const answer = { model: 'writer-2', id: 'chatcmpl-1', finishReason: 'stop', tokens: { input: 12, output: 5 }, costUsd: 0.001 };

  it('gives the response model, id, finish reasons, tokens as reported, and the cost', () => {
    expect(chatResponseAttributes(answer, 'v1.41')).toEqual({
      'gen_ai.response.model': 'writer-2',
      'gen_ai.response.id': 'chatcmpl-1',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
      'tierflow.cost_usd': 0.001,
    });
  });

  it('adds the per-modality counts in the latest conventions, and leaves out what the server did not say', () => {
    expect(chatResponseAttributes(answer, 'latest')).toMatchObject({ 'gen_ai.usage.text.input_tokens': 12, 'gen_ai.usage.text.output_tokens': 5 });
    expect(chatResponseAttributes({ model: 'm', id: null, finishReason: null, tokens: null, costUsd: 0 }, 'v1.41')).toEqual({ 'gen_ai.response.model': 'm', 'tierflow.cost_usd': 0 });
  });
});

describe('errorTypeOf', () => {
  const http = (status: number) => Object.assign(new Error(`${status}`), { status });
  it.each([
    ['an HTTP refusal', http(429), '429'],
    ['a Tierflow error caused by one', TierflowError.retryable('failed', { code: 'llm_call_failed', cause: http(500) }), '500'],
    ['a Tierflow error of its own', TierflowError.permanent('no', { code: 'model_unreachable' }), 'model_unreachable'],
    ['an abort', Object.assign(new Error('aborted'), { name: 'AbortError' }), 'AbortError'],
    ['a TypeError', new TypeError('x'), 'TypeError'],
    ['a plain Error', new Error('x'), 'Error'],
    ['a string', 'oops', '_OTHER'],
  ])('%s is %s', (_what, error, type) => {
    expect(errorTypeOf(error)).toBe(type);
  });
});
