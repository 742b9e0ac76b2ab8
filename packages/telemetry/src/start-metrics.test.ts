import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { AggregationTemporality, InMemoryMetricExporter, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { servePrometheus } from './prometheus-endpoint.js';
import { SHUTDOWN_TIMEOUT_MS, startTelemetry, type Telemetry } from './start-telemetry.js';

/** Traces off, so only metrics are under test. */
const env = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ OTEL_TRACES_EXPORTER: 'none', ...extra });

function count(name = 'test.things'): void {
  metrics.getMeter('test').createCounter(name).add(3, { 'test.kind': 'a' });
}

describe('startTelemetry and metrics', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let telemetry: Telemetry | null = null;
  afterEach(async () => {
    await telemetry?.shutdown();
    telemetry = null;
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('with traces off, still serves the figures on a Prometheus endpoint, and says where', async () => {
    telemetry = await startTelemetry({ serviceName: 'test', env: env({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: '0' }), warn: () => undefined });
    expect(telemetry.enabled).toBe(false);
    expect(telemetry.metricsOn).toBe(true);
    expect(telemetry.metricsUrl).toMatch(/^http:\/\/localhost:\d+\/metrics$/);
    count();
    const text = await (await fetch(telemetry.metricsUrl!)).text();
    expect(text).toContain('test_things_total{test_kind="a",otel_scope_name="test"} 3');
    expect(text).toContain('service_name="test"');
    expect((await fetch(telemetry.metricsUrl!.replace('/metrics', '/other'))).status).toBe(404);
    const url = telemetry.metricsUrl!;
    await telemetry.shutdown();
    telemetry = null;
    await expect(fetch(url)).rejects.toThrow();
  });

  it.each([
    ['TIERFLOW_METRICS=off', { TIERFLOW_METRICS: 'off' }],
    ['OTEL_SDK_DISABLED=true', { OTEL_SDK_DISABLED: 'true' }],
    ['no exporter and no reader', { OTEL_METRICS_EXPORTER: 'none' }],
  ])('records nothing with %s', async (_, extra) => {
    telemetry = await startTelemetry({ serviceName: 'test', env: env({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: '0', ...extra }), warn: () => undefined });
    expect([telemetry.metricsOn, telemetry.metricsUrl]).toEqual([false, null]);
    // The API's no-op meter: an instrument made now records nowhere.
    expect(metrics.getMeter('test').createCounter('x').constructor.name).toBe('NoopCounterMetric');
  });

  it("records into the caller's own readers, and they get the last figures at shutdown", async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
    telemetry = await startTelemetry({ serviceName: 'test', env: env({}), metricReaders: [reader], warn: () => undefined });
    expect(telemetry.metricsOn).toBe(true);
    count();
    await telemetry.shutdown();
    telemetry = null;
    const names = exporter.getMetrics().flatMap((batch) => batch.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.descriptor.name)));
    expect(names).toEqual(['test.things']);
  });

  /** A receiver of OTLP/HTTP metrics: what each request carried. */
  async function receiver(): Promise<{ url: string; requests: { path: string; headers: IncomingHttpHeaders; body: Buffer }[] }> {
    const requests: { path: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        requests.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
  }

  it.each([
    ['http/json', 'application/json'],
    ['http/protobuf', 'application/x-protobuf'],
  ])('sends the last figures over OTLP (%s) as it shuts down', async (protocol, contentType) => {
    const collector = await receiver();
    telemetry = await startTelemetry({
      serviceName: 'test',
      env: env({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: protocol }),
      warn: () => undefined,
    });
    count('test.sent');
    await telemetry.shutdown();
    telemetry = null;
    expect(collector.requests.map((request) => [request.path, request.headers['content-type']])).toEqual([['/v1/metrics', contentType]]);
    // Strings go into either encoding as they are.
    expect(collector.requests[0]!.body.includes('test.sent')).toBe(true);
  });

  it('warns once and does not wait when no collector listens', async () => {
    const collector = await receiver();
    await cleanups.pop()!(); // nothing listens there any more
    const warnings: string[] = [];
    telemetry = await startTelemetry({
      serviceName: 'test',
      env: env({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_METRIC_EXPORT_INTERVAL: '50' }),
      warn: (message) => warnings.push(message),
    });
    count();
    await expect.poll(() => warnings.length).toBe(1);
    const started = Date.now();
    await telemetry.shutdown();
    telemetry = null;
    expect(Date.now() - started).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`^telemetry: metrics could not be exported to ${collector.url}/v1/metrics \\(.*ECONNREFUSED.*\\); carrying on without them$`))]);
  });

  it('says once which exporter names it does not know', async () => {
    const warnings: string[] = [];
    telemetry = await startTelemetry({ serviceName: 'test', env: env({ OTEL_METRICS_EXPORTER: 'statsd' }), warn: (message) => warnings.push(message) });
    expect(warnings).toEqual(['telemetry: OTEL_METRICS_EXPORTER names statsd, not one of otlp, prometheus, console, none: left out']);
  });
});

describe('servePrometheus', () => {
  it('takes the first free port of its range, and says so when none is', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as AddressInfo).port;
    try {
      const first = await servePrometheus(new PrometheusExporter({ preventServerStart: true }), { host: '127.0.0.1', port: taken, ports: 4 });
      expect(first.endpoint?.port).toBeGreaterThan(taken);
      expect(first.endpoint?.url).toBe(`http://127.0.0.1:${first.endpoint!.port}/metrics`);
      await first.endpoint?.close();
      const none = await servePrometheus(new PrometheusExporter({ preventServerStart: true }), { host: '127.0.0.1', port: taken, ports: 1 });
      expect(none).toEqual({ endpoint: null, problem: `no /metrics endpoint on 127.0.0.1, port ${taken} (listen EADDRINUSE: address already in use 127.0.0.1:${taken})` });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
