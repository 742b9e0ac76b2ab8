import { describe, expect, it } from 'vitest';
import { metricsUrl, resolveMetrics, type MetricsConfig } from './metrics-config.js';

type Picked = Pick<MetricsConfig, 'on' | 'exporters' | 'unknown' | 'otlp' | 'prometheus'>;
const pick = ({ on, exporters, unknown, otlp, prometheus }: MetricsConfig): Picked => ({ on, exporters, unknown, otlp, prometheus });
const off: Picked = { on: false, exporters: [], unknown: [], otlp: null, prometheus: null };

describe('resolveMetrics: which readers from which environment', () => {
  it.each<[string, NodeJS.ProcessEnv, boolean | undefined, Picked]>([
    ['nothing set: metrics on, no per-process exporter', {}, undefined, { on: true, exporters: [], unknown: [], otlp: null, prometheus: null }],
    ['TIERFLOW_METRICS=off', { TIERFLOW_METRICS: 'off', OTEL_METRICS_EXPORTER: 'prometheus' }, undefined, off],
    ['the setting as read by the runtime wins over the variable', { TIERFLOW_METRICS: 'off' }, true, { on: true, exporters: [], unknown: [], otlp: null, prometheus: null }],
    ['the setting off', { OTEL_METRICS_EXPORTER: 'otlp' }, false, off],
    ['OTEL_SDK_DISABLED=true turns everything off', { OTEL_SDK_DISABLED: 'true', OTEL_METRICS_EXPORTER: 'otlp' }, true, off],
    [
      'otlp: protobuf over HTTP to the default endpoint',
      { OTEL_METRICS_EXPORTER: 'otlp' },
      undefined,
      { on: true, exporters: ['otlp'], unknown: [], otlp: { protocol: 'http/protobuf', url: 'http://localhost:4318/v1/metrics' }, prometheus: null },
    ],
    [
      'otlp: the shared endpoint gets the signal path, the metrics endpoint is taken as it is',
      { OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      undefined,
      { on: true, exporters: ['otlp'], unknown: [], otlp: { protocol: 'http/json', url: 'http://collector:4318/v1/metrics' }, prometheus: null },
    ],
    [
      'otlp: the metrics variables first',
      {
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://b:9000/in',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf',
      },
      undefined,
      { on: true, exporters: ['otlp'], unknown: [], otlp: { protocol: 'http/protobuf', url: 'http://b:9000/in' }, prometheus: null },
    ],
    [
      'otlp over gRPC: its own default port, no path',
      { OTEL_METRICS_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc' },
      undefined,
      { on: true, exporters: ['otlp'], unknown: [], otlp: { protocol: 'grpc', url: 'http://localhost:4317' }, prometheus: null },
    ],
    [
      'prometheus: localhost, from 9464, sixteen ports',
      { OTEL_METRICS_EXPORTER: 'prometheus' },
      undefined,
      { on: true, exporters: ['prometheus'], unknown: [], otlp: null, prometheus: { host: 'localhost', port: 9464, ports: 16 } },
    ],
    [
      'prometheus: a host and a first port named; port 0 lets the system pick',
      { OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_HOST: '0.0.0.0', OTEL_EXPORTER_PROMETHEUS_PORT: '0' },
      undefined,
      { on: true, exporters: ['prometheus'], unknown: [], otlp: null, prometheus: { host: '0.0.0.0', port: 0, ports: 1 } },
    ],
    [
      'prometheus: a port that is no port is the default; the range stops at 65535',
      { OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: '65530' },
      undefined,
      { on: true, exporters: ['prometheus'], unknown: [], otlp: null, prometheus: { host: 'localhost', port: 65530, ports: 6 } },
    ],
    [
      'a list, spaced and repeated, with a name that is no exporter',
      { OTEL_METRICS_EXPORTER: ' prometheus, OTLP ,console,prometheus,statsd', OTEL_EXPORTER_PROMETHEUS_PORT: 'x' },
      undefined,
      {
        on: true,
        exporters: ['prometheus', 'otlp', 'console'],
        unknown: ['statsd'],
        otlp: { protocol: 'http/protobuf', url: 'http://localhost:4318/v1/metrics' },
        prometheus: { host: 'localhost', port: 9464, ports: 16 },
      },
    ],
    ['none wins over the others', { OTEL_METRICS_EXPORTER: 'prometheus,none' }, undefined, { on: true, exporters: [], unknown: [], otlp: null, prometheus: null }],
  ])('%s', (_, env, setting, expected) => {
    expect(pick(resolveMetrics(env, setting))).toEqual(expected);
  });

  it('exports every minute unless OTEL_METRIC_EXPORT_INTERVAL says otherwise, an export never outlasting the interval', () => {
    expect(resolveMetrics({})).toMatchObject({ intervalMs: 60_000, timeoutMs: 30_000 });
    expect(resolveMetrics({ OTEL_METRIC_EXPORT_INTERVAL: '1000' })).toMatchObject({ intervalMs: 1000, timeoutMs: 1000 });
    expect(resolveMetrics({ OTEL_METRIC_EXPORT_INTERVAL: 'soon', OTEL_METRIC_EXPORT_TIMEOUT: '5000' })).toMatchObject({ intervalMs: 60_000, timeoutMs: 5000 });
  });
});

describe('metricsUrl', () => {
  it('names the host listened on, or the machine for every interface', () => {
    expect(metricsUrl('localhost', 9465, 'box')).toBe('http://localhost:9465/metrics');
    expect(metricsUrl('0.0.0.0', 9464, 'box')).toBe('http://box:9464/metrics');
    expect(metricsUrl('::1', 9464, 'box')).toBe('http://[::1]:9464/metrics');
  });
});
