import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type SpanContext } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { waitFor } from '@tierflow/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

const gzip = promisify(gzipCallback);

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

/** A span context from elsewhere, for the link. */
const LINKED: SpanContext = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: TraceFlags.SAMPLED,
};

/**
 * Sends a PRODUCER span (attributes, an event, a link) and its CONSUMER child (ERROR status)
 * through a real SDK pipeline to `exporter`, and returns the span contexts it made.
 */
async function sendTwoSpans(exporter: SpanExporter): Promise<{ parent: SpanContext; child: SpanContext }> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'otlp-receiver-test', 'deployment.environment.name': 'test' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  try {
    const tracer = provider.getTracer('otlp-receiver-test');
    const parent = tracer.startSpan('tierflow publish', {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.system': 'bullmq', 'tierflow.attempt': 3, 'tierflow.ratio': 0.25, 'tierflow.retry': true, 'tierflow.tags': ['a', 'b'] },
      links: [{ context: LINKED }],
    });
    parent.addEvent('enqueued', { 'queue.name': 'fleet', 'queue.depth': 7 });
    const child = tracer.startSpan('tierflow process', { kind: SpanKind.CONSUMER }, trace.setSpan(ROOT_CONTEXT, parent));
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
    child.end();
    parent.end();
    await provider.forceFlush();
    return { parent: parent.spanContext(), child: child.spanContext() };
  } finally {
    await provider.shutdown();
  }
}

async function spansOf(traceId: string, count: number): Promise<ReceivedSpan[]> {
  return waitFor(
    () => {
      const found = receiver.spans.filter((span) => span.traceId === traceId);
      return found.length >= count ? found : undefined;
    },
    { timeoutMs: 10_000, description: `${count} spans of trace ${traceId} at ${receiver.url}; have ${receiver.spans.length} spans from ${receiver.requests} requests` },
  );
}

describe('startOtlpReceiver', () => {
  it('listens on a loopback port', () => {
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(receiver.spans).toEqual([]);
    expect(receiver.requests).toBe(0);
  });

  const exporters: [ReceivedSpan['encoding'], (url: string) => SpanExporter][] = [
    ['json', (url) => new JsonTraceExporter({ url })],
    ['protobuf', (url) => new ProtoTraceExporter({ url })],
  ];

  for (const [encoding, makeExporter] of exporters) {
    it(`receives every field from the real ${encoding} exporter`, async () => {
      const { parent, child } = await sendTwoSpans(makeExporter(`${receiver.url}/v1/traces`));
      const spans = await spansOf(parent.traceId, 2);
      expect(spans).toHaveLength(2);
      // SimpleSpanProcessor exports each span on its own.
      expect(receiver.requests).toBe(2);

      const producer = spans.find((span) => span.name === 'tierflow publish');
      const consumer = spans.find((span) => span.name === 'tierflow process');
      const resource = { 'service.name': 'otlp-receiver-test', 'deployment.environment.name': 'test' };
      expect(producer).toEqual({
        traceId: parent.traceId,
        spanId: parent.spanId,
        parentSpanId: null,
        name: 'tierflow publish',
        kind: 'PRODUCER',
        attributes: { 'messaging.system': 'bullmq', 'tierflow.attempt': 3, 'tierflow.ratio': 0.25, 'tierflow.retry': true, 'tierflow.tags': '["a","b"]' },
        events: [{ name: 'enqueued', attributes: { 'queue.name': 'fleet', 'queue.depth': 7 } }],
        links: [{ traceId: LINKED.traceId, spanId: LINKED.spanId }],
        status: 'UNSET',
        serviceName: 'otlp-receiver-test',
        resource,
        encoding,
      } satisfies ReceivedSpan);
      expect(consumer).toEqual({
        traceId: parent.traceId,
        spanId: child.spanId,
        parentSpanId: parent.spanId,
        name: 'tierflow process',
        kind: 'CONSUMER',
        attributes: {},
        events: [],
        links: [],
        status: 'ERROR',
        serviceName: 'otlp-receiver-test',
        resource,
        encoding,
      } satisfies ReceivedSpan);
      expect(child.traceId).toBe(parent.traceId);
      for (const span of spans) {
        expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      }
    });
  }

  it('accepts gzip’d OTLP/JSON, with numeric enums and string intValues', async () => {
    const traceId = '5b8efff798038103d269b633813fc60c';
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'gzip-client' } }] },
          scopeSpans: [
            {
              scope: { name: 'hand-made' },
              spans: [
                {
                  traceId,
                  spanId: 'eee19b7ec3c1b174',
                  parentSpanId: '',
                  name: 'zipped',
                  kind: 2,
                  startTimeUnixNano: '1544712660000000000',
                  endTimeUnixNano: '1544712661000000000',
                  attributes: [
                    { key: 'big', value: { intValue: '9007199254740993' } },
                    { key: 'small', value: { intValue: '42' } },
                    { key: 'map', value: { kvlistValue: { values: [{ key: 'k', value: { boolValue: false } }] } } },
                  ],
                  status: { code: 1 },
                },
              ],
            },
          ],
        },
      ],
    };
    const response = await fetch(`${receiver.url}/v1/traces`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: await gzip(JSON.stringify(body)),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({});
    expect(receiver.requests).toBe(1);
    expect(receiver.spans).toEqual([
      {
        traceId,
        spanId: 'eee19b7ec3c1b174',
        parentSpanId: null,
        name: 'zipped',
        kind: 'SERVER',
        attributes: { big: '9007199254740993', small: 42, map: '{"k":false}' },
        events: [],
        links: [],
        status: 'OK',
        serviceName: 'gzip-client',
        resource: { 'service.name': 'gzip-client' },
        encoding: 'json',
      } satisfies ReceivedSpan,
    ]);
  });

  it('answers 404 on other paths', async () => {
    const response = await fetch(`${receiver.url}/v1/metrics`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(404);
    await response.body?.cancel();
    expect(receiver.requests).toBe(0);
  });

  it('answers 400 on a body it cannot decode, and keeps nothing', async () => {
    const response = await fetch(`${receiver.url}/v1/traces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"resourceSpans":' });
    expect(response.status).toBe(400);
    await response.body?.cancel();
    expect(receiver.requests).toBe(1);
    expect(receiver.spans).toEqual([]);
  });
  it('with decodeLater, answers at once and decodes only when asked', async () => {
    const later = await startOtlpReceiver({ decodeLater: true });
    try {
      const { parent } = await sendTwoSpans(new ProtoTraceExporter({ url: `${later.url}/v1/traces` }));
      expect(later.requests).toBeGreaterThan(0);
      expect(later.spans).toEqual([]);
      later.decodePending();
      expect(later.spans.filter((span) => span.traceId === parent.traceId)).toHaveLength(2);
      later.decodePending(); // nothing left: the spans are not added twice
      expect(later.spans).toHaveLength(2);
    } finally {
      await later.close();
    }
  });
});
