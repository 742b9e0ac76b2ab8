import { isTierflowError } from '@tierflow/protocol';
import { FakeOpenAiServer } from '@tierflow/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { specialistInput } from '../test-input.js';
import { llmSpecialist } from './llm-specialist.js';

// A delegation's handoff.max_context_tokens against the real `openai` client and an
// OpenAI-compatible server this test runs: a prompt over it never reaches the server.
let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await FakeOpenAiServer.start(['writer']);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

const specialist = () => llmSpecialist({ name: 'writer', baseURL: server.baseURL, apiKey: 'test' });

describe('an LLM specialist under max_context_tokens', () => {
  it('answers context_too_large, not retryable, without calling the model, when its prompt is over the limit', async () => {
    const error = await specialist()
      .run(specialistInput({ objective: 'summarise '.repeat(200), maxContextTokens: 100 }))
      .then(
        () => null,
        (thrown: unknown) => thrown,
      );
    expect(isTierflowError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'context_too_large', retryable: false, message: expect.stringContaining("over the delegation's max_context_tokens of 100") as unknown });
    expect(server.requests).toHaveLength(0);
  });

  it('calls the model as usual when the prompt fits', async () => {
    const result = await specialist().run(specialistInput({ maxContextTokens: 4_000 }));
    expect(result.summary).toBe('done');
    expect(server.requests).toHaveLength(1);
  });
});
