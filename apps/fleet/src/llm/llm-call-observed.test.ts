import type { ModelAnswer, ModelCallReply, ModelCalls, ModelCallStart, ModelCallWait } from '@tierflow/runtime/policy';
import { FakeOpenAiServer } from '@tierflow/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { specialistInput } from '../test-input.js';
import { llmSpecialist } from './llm-specialist.js';

// What a model call tells its observation (the span and metrics the runtime makes of it), against
// an OpenAI-compatible server this test runs.
let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await FakeOpenAiServer.start(['writer']);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.replies.length = 0;
  server.usage = { prompt_tokens: 40, completion_tokens: 9 };
});

type Told = { start: ModelCallStart } | { waited: ModelCallWait } | { answered: ModelCallReply } | { failed: unknown; costUsd: number } | { parked: number };

/** Calls that replay `replayed` (when given) and remember what each observation was told, in order. */
function observedCalls(replayed: ModelAnswer | null = null): { calls: ModelCalls; told: Told[] } {
  const told: Told[] = [];
  return {
    told,
    calls: {
      replay: () => Promise.resolve(replayed),
      record: () => undefined,
      observe: (start) => {
        told.push({ start });
        return {
          waited: (wait) => told.push({ waited: wait }),
          answered: (reply) => told.push({ answered: reply }),
          failed: (error, costUsd) => told.push({ failed: error, costUsd }),
          parked: (until) => told.push({ parked: until }),
        };
      },
    },
  };
}

describe('a model call, observed', () => {
  const writer = (provider?: string) => llmSpecialist({ name: 'writer', baseURL: server.baseURL, maxTokens: 100, ...(provider ? { provider } : {}) });

  it('tells its start, each Retry-After wait, and its answer with the tokens the server reported', async () => {
    server.replies.push({ status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'busy' } } });
    const { calls, told } = observedCalls();
    await writer('vllm').run(specialistInput({ calls }));
    expect(told).toEqual([
      { start: { purpose: 'specialist', request: expect.objectContaining({ model: 'writer', endpoint: server.baseURL }) as unknown, replayed: false, provider: 'vllm' } },
      { waited: { ms: 0, reason: 'retry_after', status: 429, attempt: 1 } },
      {
        answered: {
          answer: { content: server.defaultContent, model: 'writer', finish_reason: 'stop' },
          id: 'chatcmpl-test',
          tokens: { input: 40, output: 9 },
          costUsd: 0,
        },
      },
    ]);
  });

  it('tells a streamed answer’s id and tokens too, and none for a server that reports no usage', async () => {
    const { calls, told } = observedCalls();
    await llmSpecialist({ name: 'writer', baseURL: server.baseURL, stream: true }).run(specialistInput({ calls }));
    expect(told.at(-1)).toMatchObject({ answered: { id: 'chatcmpl-test', tokens: { input: 40, output: 9 } } });
    server.usage = null;
    const unreported = observedCalls();
    await writer().run(specialistInput({ calls: unreported.calls }));
    expect(unreported.told.at(-1)).toMatchObject({ answered: { tokens: null } });
  });

  it('tells a failure, with its error', async () => {
    server.replies.push({ status: 400, body: { error: { message: 'bad request' } } });
    const { calls, told } = observedCalls();
    await expect(writer().run(specialistInput({ calls }))).rejects.toThrow(/bad request/);
    expect(told.at(-1)).toMatchObject({ failed: expect.objectContaining({ code: 'llm_call_refused' }) as unknown, costUsd: 0 });
  });

  it('marks a replayed call so, and tells its answer without tokens', async () => {
    const answer = { content: server.defaultContent, model: 'writer', finish_reason: 'stop' };
    const { calls, told } = observedCalls(answer);
    const before = server.completions();
    await writer().run(specialistInput({ calls }));
    expect(server.completions()).toBe(before);
    expect(told).toEqual([{ start: expect.objectContaining({ replayed: true }) as unknown }, { answered: { answer, id: null, tokens: null, costUsd: 0 } }]);
  });
});
