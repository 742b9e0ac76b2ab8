import { metrics, ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';
import { AggregationTemporality, MeterProvider, MetricReader, type DataPoint, type Histogram, type MetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { TierflowError } from '@tierflow/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelCallStart } from '../../policy/model-calls.js';
import type { GenAiOptions } from './conventions.js';
import { DURATION_BUCKETS, recordModelCall, TOKEN_USAGE_BUCKETS } from './instruments.js';
import { observeModelCall } from './model-call-span.js';

/** A reader the test collects from when it likes. */
class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const spans = new InMemorySpanExporter();
let reader: TestReader;
let parent: Context;

/** The metrics collected so far, by name. */
async function collected(): Promise<Map<string, MetricData>> {
  const { resourceMetrics } = await reader.collect();
  return new Map(resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).map((metric) => [metric.descriptor.name, metric]));
}

function register(): void {
  metrics.disable();
  reader = new TestReader();
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
}

beforeAll(() => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  parent = trace.setSpan(ROOT_CONTEXT, trace.getTracer('test').startSpan('fleet process'));
});

afterAll(() => {
  trace.disable();
  metrics.disable();
});

afterEach(() => spans.reset());

const start = (over: Partial<ModelCallStart> = {}): ModelCallStart => ({
  purpose: 'specialist',
  request: {
    endpoint: 'http://127.0.0.1:8000/v1',
    model: 'writer',
    messages: [
      { role: 'system', content: 'You write.' },
      { role: 'user', content: 'Write.' },
    ],
    params: { max_tokens: 64 },
  },
  replayed: false,
  ...over,
});
const V141: GenAiOptions = { conventions: 'v1.41', captureContent: false };
const answer = { content: 'done', model: 'writer-v2', finish_reason: 'stop' };

describe('observeModelCall', () => {
  beforeAll(register);

  it('makes a CLIENT span `chat {model}` under the hop, with the request, the answer, the tokens as reported and each wait', () => {
    const observed = observeModelCall(parent, V141, start());
    observed.waited({ ms: 250, reason: 'model_limit', limit: 'rpm', status: null, attempt: 1 });
    observed.waited({ ms: 1000, reason: 'retry_after', status: 429, attempt: 1 });
    observed.answered({ answer, id: 'chatcmpl-7', tokens: { input: 12, output: 5 }, costUsd: 0.002 });
    const [span] = spans.getFinishedSpans();
    expect(span?.name).toBe('chat writer');
    expect(span?.kind).toBe(2); // CLIENT
    expect(span?.parentSpanContext?.spanId).toBe(trace.getSpan(parent)!.spanContext().spanId);
    expect(span?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'writer',
      'gen_ai.request.max_tokens': 64,
      'gen_ai.response.model': 'writer-v2',
      'gen_ai.response.id': 'chatcmpl-7',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
      'server.address': '127.0.0.1',
      'server.port': 8000,
      'tierflow.cost_usd': 0.002,
    });
    expect(span?.events.map((event) => [event.name, event.attributes])).toEqual([
      ['model_limit', { 'tierflow.limit': 'rpm', 'tierflow.wait_ms': 250, 'tierflow.attempt': 1 }],
      ['retry', { 'tierflow.retry.reason': 'retry_after', 'tierflow.retry.wait_ms': 1000, 'tierflow.attempt': 1, 'http.response.status_code': 429 }],
    ]);
    // No content unless asked for.
    expect(Object.keys(span!.attributes).filter((key) => key.includes('messages') || key.includes('instructions'))).toEqual([]);
  });

  it('carries the prompt, the instructions and the answer when content is captured', () => {
    observeModelCall(parent, { ...V141, captureContent: true }, start()).answered({ answer, id: null, tokens: null, costUsd: 0 });
    const [span] = spans.getFinishedSpans();
    expect(JSON.parse(String(span?.attributes['gen_ai.system_instructions']))).toEqual([{ type: 'text', content: 'You write.' }]);
    expect(JSON.parse(String(span?.attributes['gen_ai.input.messages']))).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Write.' }] }]);
    expect(JSON.parse(String(span?.attributes['gen_ai.output.messages']))).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'done' }], finish_reason: 'stop' }]);
  });

  it('ends a failed call with error.type and an error status, and ignores what comes after the end', () => {
    const observed = observeModelCall(parent, V141, start());
    const cause = Object.assign(new Error('busy'), { status: 503 });
    observed.failed(TierflowError.retryable('busy', { code: 'llm_call_failed', cause }), 0);
    observed.answered({ answer, id: null, tokens: null, costUsd: 0 });
    const finished = spans.getFinishedSpans();
    expect(finished).toHaveLength(1);
    expect(finished[0]?.attributes['error.type']).toBe('503');
    expect(finished[0]?.status.code).toBe(2); // ERROR
  });

  it('records the metrics of calls sent, with the advised buckets, and none for a replayed call', async () => {
    register();
    observeModelCall(parent, V141, start()).answered({ answer, id: null, tokens: { input: 12, output: 5 }, costUsd: 0.25 });
    observeModelCall(parent, V141, start()).failed(Object.assign(new Error('x'), { status: 500 }), 0);
    observeModelCall(parent, V141, start({ replayed: true })).answered({ answer, id: null, tokens: { input: 99, output: 99 }, costUsd: 0 });
    expect(spans.getFinishedSpans().find((span) => span.attributes['tierflow.replayed'] === true)).toBeDefined();
    const found = await collected();
    const usage = found.get('gen_ai.client.token.usage')!;
    expect(usage.descriptor.unit).toBe('{token}');
    const points = usage.dataPoints as DataPoint<Histogram>[];
    expect(points.map((point) => [point.attributes['gen_ai.token.type'], point.value.sum, point.value.count])).toEqual([
      ['input', 12, 1],
      ['output', 5, 1],
    ]);
    expect(points[0]!.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'writer',
      'gen_ai.response.model': 'writer-v2',
      'server.address': '127.0.0.1',
      'gen_ai.token.type': 'input',
    });
    expect(points[0]!.value.buckets.boundaries).toEqual(TOKEN_USAGE_BUCKETS);
    const duration = found.get('gen_ai.client.operation.duration')!;
    expect(duration.descriptor.unit).toBe('s');
    const durations = duration.dataPoints as DataPoint<Histogram>[];
    expect(durations.map((point) => point.attributes['error.type'] ?? null).sort()).toEqual(['500', null]);
    expect(durations[0]!.value.buckets.boundaries).toEqual(DURATION_BUCKETS);
    const cost = found.get('tierflow.model.cost')!;
    expect(cost.descriptor.unit).toBe('USD');
    expect(cost.dataPoints.map((point) => [point.attributes, point.value])).toEqual([[{ 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'writer' }, 0.25]]);
    expect(found.has('gen_ai.client.inference.tokens')).toBe(false);
  });

  it('counts tokens with gen_ai.client.inference.tokens instead in the latest conventions', async () => {
    register();
    observeModelCall(parent, { conventions: 'latest', captureContent: false }, start()).answered({ answer, id: null, tokens: { input: 12, output: 5 }, costUsd: 0 });
    const found = await collected();
    expect(found.has('gen_ai.client.token.usage')).toBe(false);
    const tokens = found.get('gen_ai.client.inference.tokens')!;
    expect(tokens.dataPoints.map((point) => [point.attributes['gen_ai.token.type'], point.attributes['gen_ai.token.modality'], point.value])).toEqual([
      ['input', 'text', 12],
      ['output', 'text', 5],
    ]);
    expect(spans.getFinishedSpans()[0]?.attributes).toMatchObject({ 'gen_ai.usage.text.input_tokens': 12, 'gen_ai.usage.text.output_tokens': 5 });
  });
});

describe('the instruments', () => {
  it('are made on first use, and made again for a MeterProvider registered later: none recorded before is lost for good', async () => {
    metrics.disable();
    const measure = { provider: 'openai', requestModel: 'm', responseModel: 'm', serverAddress: null, durationS: 0.5, tokens: null, costUsd: 1, errorType: null };
    recordModelCall(measure, 'v1.41'); // no provider yet: a no-op
    register();
    recordModelCall(measure, 'v1.41');
    expect((await collected()).get('tierflow.model.cost')?.dataPoints[0]?.value).toBe(1);
  });
});
