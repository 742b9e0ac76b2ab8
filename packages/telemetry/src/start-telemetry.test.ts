import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, createContextKey, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { SHUTDOWN_TIMEOUT_MS, startTelemetry, type Telemetry } from './start-telemetry.js';
import { otlpCollector, otlpHttpProtocol } from './start-traces.js';

const key = createContextKey('test');
const hop = ROOT_CONTEXT.setValue(key, 'hop');

// Spans are never started here, so nothing is exported; the endpoint only has to be valid.
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', ...extra });

async function activeAcrossAwait(): Promise<[unknown, unknown]> {
  return context.with(hop, async () => {
    const before = context.active().getValue(key);
    await new Promise((resolve) => setImmediate(resolve));
    return [before, context.active().getValue(key)] as [unknown, unknown];
  });
}

describe('startTelemetry and the active context', () => {
  let telemetry: Telemetry | null = null;
  afterEach(async () => {
    await telemetry?.shutdown();
    telemetry = null;
  });

  it('by default carries context through synchronous code, not across awaits (no async hooks)', async () => {
    telemetry = await startTelemetry({ serviceName: 'test', env: env(), warn: () => undefined });
    expect(telemetry.enabled).toBe(true);
    expect(await activeAcrossAwait()).toEqual(['hop', undefined]);
  });

  it('with TIERFLOW_OTEL_ASYNC_CONTEXT=true carries it across awaits', async () => {
    telemetry = await startTelemetry({ serviceName: 'test', env: env({ TIERFLOW_OTEL_ASYNC_CONTEXT: 'true' }), warn: () => undefined });
    expect(await activeAcrossAwait()).toEqual(['hop', 'hop']);
  });

  it('shutting down unregisters the context manager, so the process can start again', async () => {
    await (await startTelemetry({ serviceName: 'test', env: env({ TIERFLOW_OTEL_ASYNC_CONTEXT: 'true' }), warn: () => undefined })).shutdown();
    expect(context.with(hop, () => context.active().getValue(key))).toBeUndefined();
  });

  it('exports batches of 512 at least every second unless OTEL_BSP_* say otherwise', async () => {
    const defaults = env();
    await (await startTelemetry({ serviceName: 'test', env: defaults, warn: () => undefined })).shutdown();
    expect([defaults.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, defaults.OTEL_BSP_SCHEDULE_DELAY]).toEqual(['512', '1000']);
    const chosen = env({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '64', OTEL_BSP_SCHEDULE_DELAY: '5000' });
    await (await startTelemetry({ serviceName: 'test', env: chosen, warn: () => undefined })).shutdown();
    expect([chosen.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, chosen.OTEL_BSP_SCHEDULE_DELAY]).toEqual(['64', '5000']);
  });
});

describe('otlpHttpProtocol', () => {
  it('exports OTLP over HTTP itself, protobuf unless told JSON, and leaves other exporters to the SDK', () => {
    expect(otlpHttpProtocol({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe('http/protobuf');
    expect(otlpHttpProtocol({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(otlpHttpProtocol({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })).toBe('http/protobuf');
    expect(otlpHttpProtocol({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toBeUndefined();
    for (const exporter of ['console', 'zipkin', 'otlp,console', undefined]) expect(otlpHttpProtocol({ OTEL_TRACES_EXPORTER: exporter })).toBeUndefined();
  });
});

describe('otlpCollector', () => {
  it.each([
    ['nothing set: OTLP over HTTP to its default', {}, 'http://localhost:4318'],
    ['gRPC: its own default port', { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }, 'http://localhost:4317'],
    ['an endpoint named', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, 'http://collector:4318'],
    ['the traces endpoint first', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b/v1/traces' }, 'http://b/v1/traces'],
    ['another exporter: none', { OTEL_TRACES_EXPORTER: 'console' }, null],
  ] as const)('%s', (_, env, collector) => {
    expect(otlpCollector(env)).toBe(collector);
  });
});

describe('shutting down with spans still buffered', () => {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    // The SDK registers its tracer provider globally, once; the next test registers its own.
    trace.disable();
    if (endpoint === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
    for (const close of closers.splice(0)) await close();
  });

  /** A collector at OTEL_EXPORTER_OTLP_ENDPOINT (the SDK reads it from the process), answering with `answer`. */
  async function collector(answer: (response: ServerResponse) => void): Promise<{ requests: number; port: number }> {
    const seen = { requests: 0, port: 0 };
    const server = createServer((request, response) => {
      seen.requests += 1;
      request.resume().on('end', () => answer(response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    seen.port = (server.address() as AddressInfo).port;
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${seen.port}`;
    closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    return seen;
  }

  async function traceAndShutDown(): Promise<{ tookMs: number; warnings: string[]; telemetry: Telemetry }> {
    const warnings: string[] = [];
    const telemetry = await startTelemetry({ serviceName: 'test', env: { OTEL_BSP_SCHEDULE_DELAY: '60000' }, warn: (message) => warnings.push(message) });
    for (let i = 0; i < 3; i++) trace.getTracer('test').startSpan(`span ${i}`).end();
    const started = Date.now();
    await telemetry.shutdown();
    return { tookMs: Date.now() - started, warnings, telemetry };
  }

  it('sends them to a listening collector', async () => {
    const seen = await collector((response) => response.writeHead(200).end());
    const { warnings, telemetry } = await traceAndShutDown();
    expect(seen.requests).toBe(1);
    expect(warnings).toEqual([]);
    expect(telemetry.unexportedSpans).toBe(0);
  });

  it('stops at once when the connection is refused, warning once and counting them', async () => {
    const seen = await collector(() => undefined);
    await closers.pop()!(); // nothing listens on that port any more
    const { tookMs, warnings, telemetry } = await traceAndShutDown();
    expect(tookMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    expect(warnings).toEqual([`telemetry: spans could not be exported to http://127.0.0.1:${seen.port}/v1/traces (connect ECONNREFUSED 127.0.0.1:${seen.port})`]);
    expect(telemetry.unexportedSpans).toBe(3);
  });

  it('gives up on a collector that does not answer', async () => {
    const seen = await collector(() => undefined);
    const { tookMs, warnings, telemetry } = await traceAndShutDown();
    expect(seen.requests).toBe(1);
    expect(tookMs).toBeGreaterThanOrEqual(SHUTDOWN_TIMEOUT_MS - 5);
    expect(tookMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 500);
    expect(warnings).toEqual([`telemetry: the collector at http://127.0.0.1:${seen.port}/v1/traces did not take the last spans within ${SHUTDOWN_TIMEOUT_MS} ms; exiting without them`]);
    await expect.poll(() => telemetry.unexportedSpans).toBe(3);
  });
});
