import { isTierflowError, TierflowError, type Usage } from '@tierflow/protocol';
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

type MeterEvent = { reserve: Usage | undefined } | { settle: Usage; estimated: boolean };

/** A meter that refuses nothing and remembers what it was told, in order. */
function recordingMeter() {
  const events: MeterEvent[] = [];
  return {
    events,
    reserve: (estimate?: Usage) => {
      events.push({ reserve: estimate });
      return Promise.resolve({
        settle: (usage: Usage, estimated = false) => {
          events.push({ settle: usage, estimated });
          return Promise.resolve();
        },
      });
    },
    record: () => Promise.reject(new Error('a reserved call is settled, not recorded')),
  };
}

/** The prompt tokens a request's reservation holds: its messages and response format as JSON, 4 characters a token. */
function promptTokens(index = 0): number {
  const body = server.requests[index]?.body as { messages: unknown; response_format: unknown };
  return Math.ceil(JSON.stringify({ messages: body.messages, response_format: body.response_format }).length / 4);
}

const usage = (tokens_in: number, tokens_out: number, cost_usd = 0, llm_calls = 1) => ({ tokens_in, tokens_out, cost_usd, llm_calls });

const specialist = () => llmSpecialist({ name: 'python-lora', baseURL: server.baseURL, apiKey: 'test' });

describe('llmSpecialist', () => {
  it('calls the model named after it with the prompt and the expected-output schema, and reports the answer, its confidence and tokens', async () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    const result = await specialist().run(specialistInput({ expectedOutputSchema: schema }));
    expect(result).toEqual({
      summary: 'done',
      confidence: 0.8,
      artifacts: [{ artifact_type: 'llm_output', content: '{"ok":true}' }],
      resources_used: { model: 'python-lora', usage: { tokens_in: 12, tokens_out: 5, cost_usd: 0, llm_calls: 1 } },
    });
    const body = server.requests[0]?.body as { model: string; messages: { content: string }[]; response_format: { json_schema: { schema: unknown } } };
    expect(body.model).toBe('python-lora');
    expect(body.messages[1]?.content).toContain('Objective: Write binary search function');
    expect(body.response_format.json_schema.schema).toMatchObject({ properties: { output: schema } });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test');
  });

  it('prices the endpoint’s token counts per million, reserving each call before it (prompt estimate and max_tokens) and settling it after', async () => {
    const meter = recordingMeter();
    const price = { input_usd_per_mtok: 2.5, output_usd_per_mtok: 10 };
    const priced = llmSpecialist({ name: 'python-lora', baseURL: server.baseURL, apiKey: 'test', price, maxTokens: 200 });
    const result = await priced.run(specialistInput({ usage: meter }));
    // 12 tokens in at $2.50 and 5 out at $10 per million.
    const used = usage(12, 5, 0.00008);
    expect(result.resources_used).toEqual({ model: 'python-lora', usage: used });
    expect(server.requests[0]?.body).toMatchObject({ max_tokens: 200 });
    const reserved = usage(promptTokens(), 200, (promptTokens() * 2.5 + 200 * 10) / 1e6);
    expect(meter.events).toEqual([{ reserve: reserved }, { settle: used, estimated: false }]);
  });

  it('without maxTokens, sends no max_tokens and reserves 1,024 tokens out', async () => {
    const meter = recordingMeter();
    await specialist().run(specialistInput({ usage: meter }));
    expect(server.requests[0]?.body).not.toHaveProperty('max_tokens');
    expect(meter.events[0]).toEqual({ reserve: usage(promptTokens(), 1_024) });
  });

  it('an answer without usage is charged by estimate (prompt and answer), settled as estimated, and the outcome says so', async () => {
    const meter = recordingMeter();
    server.usage = null;
    try {
      const result = await specialist().run(specialistInput({ usage: meter }));
      const estimate = usage(promptTokens(), Math.ceil(server.defaultContent.length / 4));
      expect(result.resources_used).toEqual({ model: 'python-lora', usage: estimate, usage_estimated: true });
      expect(meter.events[1]).toEqual({ settle: estimate, estimated: true });
    } finally {
      server.usage = { prompt_tokens: 12, completion_tokens: 5 };
    }
  });

  it('streamed, an answer whose last chunk carries no usage is charged by estimate too', async () => {
    const meter = recordingMeter();
    server.usage = null;
    try {
      const streaming = llmSpecialist({ name: 'python-lora', baseURL: server.baseURL, apiKey: 'test', stream: true });
      const result = await streaming.run(specialistInput({ usage: meter }));
      expect(result.resources_used).toMatchObject({ usage_estimated: true, usage: { tokens_in: promptTokens(), tokens_out: Math.ceil(server.defaultContent.length / 4) } });
    } finally {
      server.usage = { prompt_tokens: 12, completion_tokens: 5 };
    }
  });

  it('an endpoint that cannot be reached is tried 3 times, none of them charged or counted, and answers model_unreachable naming it without its query', async () => {
    const meter = recordingMeter();
    const closed = await FakeOpenAiServer.start(['python-lora']);
    const open = closed.baseURL;
    // A key in the query (as some gateways take one) is not shown.
    const baseURL = `${open}?key=secret`;
    await closed.close();
    const error = await llmSpecialist({ name: 'python-lora', baseURL, apiKey: 'test', maxTokens: 10 })
      .run(specialistInput({ usage: meter }))
      .catch((caught: unknown) => caught);
    expect(isTierflowError(error) && !error.retryable && error.code).toBe('model_unreachable');
    expect((error as Error).message).toBe(`model endpoint ${open} unreachable (connection refused) after 3 tries, for python-lora`);
    expect((error as Error).message).not.toContain('secret');
    // Each try was reserved, and settled as never sent: no tokens, and no call.
    expect(meter.events.filter((event) => 'reserve' in event)).toHaveLength(3);
    expect(meter.events.filter((event) => 'settle' in event)).toEqual(Array.from({ length: 3 }, () => ({ settle: usage(0, 0, 0, 0), estimated: false })));
  });

  it('an endpoint not reached stops trying when the next try would pass the deadline', async () => {
    const closed = await FakeOpenAiServer.start(['python-lora']);
    const { baseURL } = closed;
    await closed.close();
    const error = await llmSpecialist({ name: 'python-lora', baseURL, apiKey: 'test' })
      .run(specialistInput({ deadline: Date.now() + 1_500 }))
      .catch((caught: unknown) => caught);
    expect(isTierflowError(error) && error.code).toBe('model_unreachable');
    expect((error as Error).message).toContain('after 2 tries');
  });

  it('refuses a maxTokens that is not a whole number above 0', () => {
    expect(() => llmSpecialist({ name: 'x', baseURL: server.baseURL, maxTokens: 0 })).toThrow(/maxTokens/);
  });

  it('makes no call once the run’s budget is spent: the meter’s budget_exceeded goes up as it is', async () => {
    const refusal = TierflowError.permanent('run root-1 has reached its budget', { code: 'budget_exceeded' });
    const error = await specialist()
      .run(specialistInput({ usage: { reserve: () => Promise.reject(refusal), record: () => Promise.resolve() } }))
      .catch((caught: unknown) => caught);
    expect(error).toBe(refusal);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a price that is not a number from 0 up', () => {
    expect(() => llmSpecialist({ name: 'x', baseURL: server.baseURL, price: { input_usd_per_mtok: -1, output_usd_per_mtok: 1 } })).toThrow(/price/);
  });

  it('waits out a 429 whose Retry-After fits before the deadline, then calls again', async () => {
    server.replies.push({ status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'busy' } } });
    const meter = recordingMeter();
    const result = await specialist().run(specialistInput({ deadline: Date.now() + 10_000, usage: meter }));
    expect(result.summary).toBe('done');
    expect(server.requests).toHaveLength(2);
    // Both calls were reserved and count; the refused one was settled with no tokens, the answered one with its own.
    expect(meter.events.filter((event) => 'reserve' in event)).toHaveLength(2);
    expect(meter.events.filter((event) => 'settle' in event)).toEqual([
      { settle: usage(0, 0), estimated: false },
      { settle: usage(12, 5), estimated: false },
    ]);
    expect(result.resources_used).toMatchObject({ usage: { tokens_in: 12, tokens_out: 5, llm_calls: 2 } });
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

  it('aborts the HTTP request the moment the signal fires, with the signal’s reason, and charges the call its prompt estimate', async () => {
    server.replies.push({ hang: true });
    const controller = new AbortController();
    const meter = recordingMeter();
    const running = specialist().run(specialistInput({ signal: controller.signal, usage: meter }));
    await waitFor(() => server.requests.length === 1, { description: 'the request sent' });
    const abandonedBefore = server.abandoned;
    controller.abort(new Error('cancelled by the Dispatcher'));
    await expect(running).rejects.toThrow('cancelled by the Dispatcher');
    await waitFor(() => server.abandoned === abandonedBefore + 1, { description: 'the server to see the request closed' });
    // Sent, so billed: the prompt estimate is charged, no output (none is known).
    expect(meter.events[1]).toEqual({ settle: usage(promptTokens(), 0), estimated: false });
  });

  it('streamed, puts the answer together from its chunks and takes the tokens from the last', async () => {
    const streaming = llmSpecialist({ name: 'python-lora', baseURL: server.baseURL, apiKey: 'test', stream: true });
    const result = await streaming.run(specialistInput());
    expect(result).toMatchObject({ summary: 'done', confidence: 0.8, artifacts: [{ content: '{"ok":true}' }], resources_used: { usage: { tokens_in: 12, tokens_out: 5, llm_calls: 1 } } });
    expect(server.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('streamed, stops reading and closes the request the moment the signal fires, mid-stream', async () => {
    server.replies.push({ hangAfter: true });
    const controller = new AbortController();
    const running = llmSpecialist({ name: 'python-lora', baseURL: server.baseURL, apiKey: 'test', stream: true }).run(specialistInput({ signal: controller.signal }));
    await waitFor(() => server.requests.length === 1, { description: 'the request sent' });
    const abandonedBefore = server.abandoned;
    controller.abort(new Error('cancelled mid-stream'));
    await expect(running).rejects.toThrow('cancelled mid-stream');
    await waitFor(() => server.abandoned === abandonedBefore + 1, { description: 'the server to see the stream closed' });
  });
});
