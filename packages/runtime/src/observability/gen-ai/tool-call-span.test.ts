import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { observeToolCall } from './tool-call-span.js';

const spans = new InMemorySpanExporter();
let parent: Context;

beforeAll(() => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  parent = trace.setSpan(ROOT_CONTEXT, trace.getTracer('test').startSpan('fleet process'));
});

afterAll(() => trace.disable());
afterEach(() => spans.reset());

describe('observeToolCall', () => {
  it('makes an execute_tool span under the hop’s, with the GenAI conventions’ tool attributes', () => {
    const observed = observeToolCall(parent, { name: 'mcp:files/read_file', callId: 'call_7', type: 'extension' });
    observed.ended('ok', null, 42);
    observed.ended('error', 'late', 1); // once, and last
    const [span] = spans.getFinishedSpans();
    expect(span?.name).toBe('execute_tool mcp:files/read_file');
    expect(span?.kind).toBe(SpanKind.INTERNAL);
    expect(span?.parentSpanContext?.spanId).toBe(trace.getSpan(parent)?.spanContext().spanId);
    expect(span?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'mcp:files/read_file',
      'gen_ai.tool.call.id': 'call_7',
      'gen_ai.tool.type': 'extension',
      'tierflow.tool.end': 'ok',
      'tierflow.tool.result_bytes': 42,
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    expect(spans.getFinishedSpans()).toHaveLength(1);
  });

  it('marks a refused, denied or failed call as an error, with why', () => {
    observeToolCall(parent, { name: 'rm', callId: 'call_1', type: 'function' }).ended('refused', 'fleet:a may not hand work to tool:rm', 0);
    const [span] = spans.getFinishedSpans();
    expect(span?.attributes['error.type']).toBe('tool_refused');
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'fleet:a may not hand work to tool:rm' });
  });
});
