import { isTierflowError } from '@tierflow/protocol';
import { FakeOpenAiServer, waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SpecialistThrottledError, SpecialistUnavailableError } from '../specialist.js';
import { specialistInput } from '../test-input.js';
import { llmSpecialist } from './llm-specialist.js';

// The real `openai` client against an OpenAI-compatible server this test runs.
let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await FakeOpenAiServer.start(['python-lora']);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  server.replies.length = 0;
});

const specialist = () => llmSpecialist({ name: 'python-lora', baseURL: server.baseURL, apiKey: 'test' });

describe('llmSpecialist', () => {
  it('calls the model named after it with the prompt and the expected-output schema, and reports the answer, its confidence and tokens', async () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    const result = await specialist().run(specialistInput({ expectedOutputSchema: schema }));
    expect(result).toEqual({
      summary: 'done',
      confidence: 0.8,
      artifacts: [{ artifact_type: 'llm_output', content: '{"ok":true}' }],
      resources_used: { model: 'python-lora', tokens_in: 12, tokens_out: 5 },
    });
    const body = server.requests[0]?.body as { model: string; messages: { content: string }[]; response_format: { json_schema: { schema: unknown } } };
    expect(body.model).toBe('python-lora');
    expect(body.messages[1]?.content).toContain('Objective: Write binary search function');
    expect(body.response_format.json_schema.schema).toMatchObject({ properties: { output: schema } });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test');
  });

  it('waits out a 429 whose Retry-After fits before the deadline, then calls again', async () => {
    server.replies.push({ status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'busy' } } });
    const result = await specialist().run(specialistInput({ deadline: Date.now() + 10_000 }));
    expect(result.summary).toBe('done');
    expect(server.requests).toHaveLength(2);
  });

  it('answers throttled when Retry-After would pass the deadline', async () => {
    server.replies.push({ status: 503, headers: { 'retry-after': '30' }, body: { error: { message: 'overloaded' } } });
    await expect(specialist().run(specialistInput({ deadline: Date.now() + 5_000 }))).rejects.toBeInstanceOf(SpecialistThrottledError);
    expect(server.requests).toHaveLength(1);
  });

  it('maps other statuses: 404 unavailable, 500 retryable, 400 permanent', async () => {
    server.replies.push({ status: 404, body: { error: { message: 'no such model' } } }, { status: 500, body: { error: { message: 'boom' } } }, { status: 400, body: { error: { message: 'bad' } } });
    await expect(specialist().run(specialistInput())).rejects.toBeInstanceOf(SpecialistUnavailableError);
    const transient = await specialist()
      .run(specialistInput())
      .catch((error: unknown) => error);
    expect(isTierflowError(transient) && transient.retryable && transient.code).toBe('llm_call_failed');
    const permanent = await specialist()
      .run(specialistInput())
      .catch((error: unknown) => error);
    expect(isTierflowError(permanent) && !permanent.retryable && permanent.code).toBe('llm_call_refused');
  });

  it('aborts the HTTP request the moment the signal fires, with the signal’s reason', async () => {
    server.replies.push({ hang: true });
    const controller = new AbortController();
    const running = specialist().run(specialistInput({ signal: controller.signal }));
    await waitFor(() => server.requests.length === 1, { description: 'the request sent' });
    const abandonedBefore = server.abandoned;
    controller.abort(new Error('cancelled by the Dispatcher'));
    await expect(running).rejects.toThrow('cancelled by the Dispatcher');
    await waitFor(() => server.abandoned === abandonedBefore + 1, { description: 'the server to see the request closed' });
  });
});
