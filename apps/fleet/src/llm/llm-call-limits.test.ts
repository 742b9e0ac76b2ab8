import { UNOBSERVED_CALL, UNRECORDED_CALLS, type ModelCall, type ModelCallWait, type ModelLimiter } from '@tierflow/runtime/policy';
import { FakeOpenAiServer } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specialistInput } from '../test-input.js';
import { llmSpecialist } from './llm-specialist.js';

// How a model call uses the deployment's limiter, against an OpenAI-compatible server this test runs.
let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await FakeOpenAiServer.start(['writer']);
  server.usage = { prompt_tokens: 40, completion_tokens: 9 };
});
afterAll(async () => {
  await server.close();
});

function recordingLimiter() {
  const told: unknown[][] = [];
  const limiter: ModelLimiter = {
    reserve: (model, limit, _id, tokens) => {
      told.push(['reserve', model, limit.rpm, tokens]);
      return Promise.resolve({ granted: true });
    },
    settle: (model, _limit, _id, used, unsent) => {
      told.push(['settle', model, used, unsent]);
      return Promise.resolve();
    },
    pause: (model, ms) => {
      told.push(['pause', model, ms]);
      return Promise.resolve();
    },
  };
  return { limiter, told };
}

describe('a model call under shared limits', () => {
  it('reserves its estimate before the request and settles what the server reported after', async () => {
    const { limiter, told } = recordingLimiter();
    const specialist = llmSpecialist({ name: 'writer', baseURL: server.baseURL, apiKey: 'test', maxTokens: 100, limits: { rpm: 5 } });
    await specialist.run(specialistInput({ calls: { ...UNRECORDED_CALLS, limiter } }));
    expect(told).toHaveLength(2);
    expect(told[0]).toEqual(['reserve', 'writer', 5, expect.any(Number)]);
    expect(told[0]![3]).toBeGreaterThan(100);
    expect(told[1]).toEqual(['settle', 'writer', 49, false]);
  });

  it('keeps limits its endpoint shares under the endpoint’s name: reserved, settled and paused there', async () => {
    const { limiter, told } = recordingLimiter();
    server.replies.push({ status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'busy' } } });
    const specialist = llmSpecialist({ name: 'writer', baseURL: server.baseURL, apiKey: 'test', limits: { concurrent: 4, sharedBy: 'http://vllm:8000/v1' } });
    await specialist.run(specialistInput({ calls: { ...UNRECORDED_CALLS, limiter } }));
    expect(told.map((entry) => `${String(entry[0])} ${String(entry[1])}`)).toEqual([
      'reserve http://vllm:8000/v1',
      'settle http://vllm:8000/v1',
      'pause http://vllm:8000/v1',
      'reserve http://vllm:8000/v1',
      'settle http://vllm:8000/v1',
    ]);
  });

  it('pauses the model for everyone on a 429 with Retry-After, and settles the refused request at no tokens', async () => {
    const { limiter, told } = recordingLimiter();
    server.replies.push({ status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'slow down' } } });
    const specialist = llmSpecialist({ name: 'writer', baseURL: server.baseURL, apiKey: 'test' });
    await specialist.run(specialistInput({ calls: { ...UNRECORDED_CALLS, limiter } }));
    expect(told.map((entry) => entry[0])).toEqual(['reserve', 'settle', 'pause', 'reserve', 'settle']);
    expect(told[1]).toEqual(['settle', 'writer', 0, false]);
    expect(told[2]).toEqual(['pause', 'writer', 1_000]);
  });

  it('says what held it back: the wait is in the call’s record and its observation, before the one request', async () => {
    const { limiter, told } = recordingLimiter();
    let refusals = 1;
    const refusing: ModelLimiter = {
      ...limiter,
      reserve: (...args) => (refusals-- > 0 ? Promise.resolve({ granted: false, waitMs: 20, reason: 'tpm' }) : limiter.reserve(...args)),
    };
    const recorded: ModelCall[] = [];
    const waits: ModelCallWait[] = [];
    const calls = {
      ...UNRECORDED_CALLS,
      limiter: refusing,
      record: (call: ModelCall) => void recorded.push(call),
      observe: () => ({ ...UNOBSERVED_CALL, waited: (wait: ModelCallWait) => void waits.push(wait) }),
    };
    const before = server.completions();
    await llmSpecialist({ name: 'writer', baseURL: server.baseURL, apiKey: 'test', limits: { tpm: 1_000 } }).run(specialistInput({ calls }));
    expect(server.completions() - before).toBe(1);
    expect(told.map((entry) => entry[0])).toEqual(['reserve', 'settle']);
    expect(waits).toEqual([{ ms: 20, reason: 'model_limit', limit: 'tpm', status: null, attempt: 1 }]);
    expect(recorded[0]).toMatchObject({ tries: 1, waits_ms: [20] });
  });
});
