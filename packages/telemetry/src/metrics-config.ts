/**
 * What a process does with its metrics, from its environment: the pure part of the metrics set-up.
 * The standard variables are read as OpenTelemetry's SDK reads them, with one difference of
 * default: OTEL_METRICS_EXPORTER left unset means no per-process exporter (the SDK's default is
 * OTLP), since a deployment's figures are gathered without one and most machines have no metrics
 * collector to send to.
 */

/** The per-process exporters OTEL_METRICS_EXPORTER may name (besides `none`). */
export const METRIC_EXPORTERS = ['otlp', 'prometheus', 'console'] as const;
export type MetricExporterName = (typeof METRIC_EXPORTERS)[number];

export type OtlpMetricsProtocol = 'http/protobuf' | 'http/json' | 'grpc';

/** The Prometheus exporter's port unless OTEL_EXPORTER_PROMETHEUS_PORT names one (the SDK's and the specification's). */
export const DEFAULT_PROMETHEUS_PORT = 9464;
/**
 * How many ports from the first a process tries for its /metrics endpoint: enough for the four
 * workers of `tierflow up` and a few more on one host, each taking the first one free.
 */
export const PROMETHEUS_PORT_RANGE = 16;
/** The specification's default interval between exports (OTEL_METRIC_EXPORT_INTERVAL) and timeout of one. */
export const DEFAULT_EXPORT_INTERVAL_MS = 60_000;
export const DEFAULT_EXPORT_TIMEOUT_MS = 30_000;

const DEFAULT_OTLP_HTTP_ENDPOINT = 'http://localhost:4318';
const DEFAULT_OTLP_GRPC_ENDPOINT = 'http://localhost:4317';

export interface PrometheusSettings {
  /** Where the endpoint listens: OTEL_EXPORTER_PROMETHEUS_HOST, else `localhost` (the specification's default). */
  readonly host: string;
  /** The first port tried; 0 lets the system pick one. */
  readonly port: number;
  /** Ports tried from `port` on, the first free one taken (1 for port 0). */
  readonly ports: number;
}

export interface MetricsConfig {
  /** False when OTEL_SDK_DISABLED=true or TIERFLOW_METRICS=off: no meter provider, nothing recorded. */
  readonly on: boolean;
  /** The per-process exporters, each once, in the order named. */
  readonly exporters: readonly MetricExporterName[];
  /** Names in OTEL_METRICS_EXPORTER that are not exporters, for one warning. */
  readonly unknown: readonly string[];
  /** With `otlp`: the encoding and where the metrics go (the full URL for HTTP). */
  readonly otlp: { readonly protocol: OtlpMetricsProtocol; readonly url: string } | null;
  /** With `prometheus`: where the /metrics endpoint listens. */
  readonly prometheus: PrometheusSettings | null;
  /** Between two exports of a push exporter (OTLP, console), and the longest one may take. */
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

/**
 * The metrics set-up an environment asks for. `metrics` (TIERFLOW_METRICS as the runtime's
 * settings read it) wins over the variable itself, which is read leniently here: only `off`
 * turns metrics off. Pure.
 */
export function resolveMetrics(env: NodeJS.ProcessEnv, metrics?: boolean): MetricsConfig {
  const on = env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true' && (metrics ?? env.TIERFLOW_METRICS?.trim().toLowerCase() !== 'off');
  const named = [
    ...new Set(
      (env.OTEL_METRICS_EXPORTER ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter((name) => name !== ''),
    ),
  ];
  const none = named.includes('none');
  const exporters = none ? [] : named.filter((name): name is MetricExporterName => (METRIC_EXPORTERS as readonly string[]).includes(name));
  const unknown = named.filter((name) => name !== 'none' && !(METRIC_EXPORTERS as readonly string[]).includes(name));
  const intervalMs = positiveMs(env.OTEL_METRIC_EXPORT_INTERVAL) ?? DEFAULT_EXPORT_INTERVAL_MS;
  return {
    on,
    exporters: on ? exporters : [],
    unknown: on ? unknown : [],
    otlp: on && exporters.includes('otlp') ? otlpMetrics(env) : null,
    prometheus: on && exporters.includes('prometheus') ? prometheusSettings(env) : null,
    intervalMs,
    // As the SDK does: an export may not outlast the interval.
    timeoutMs: Math.min(positiveMs(env.OTEL_METRIC_EXPORT_TIMEOUT) ?? DEFAULT_EXPORT_TIMEOUT_MS, intervalMs),
  };
}

function otlpMetrics(env: NodeJS.ProcessEnv): { protocol: OtlpMetricsProtocol; url: string } {
  const named = (env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim();
  // The SDK falls back to protobuf over HTTP for a protocol it does not know, and so do we.
  const protocol: OtlpMetricsProtocol = named === 'http/json' || named === 'grpc' ? named : 'http/protobuf';
  const own = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim();
  if (own) return { protocol, url: own };
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || (protocol === 'grpc' ? DEFAULT_OTLP_GRPC_ENDPOINT : DEFAULT_OTLP_HTTP_ENDPOINT);
  // Over HTTP the signal's path goes after the shared endpoint; gRPC has no paths.
  return { protocol, url: protocol === 'grpc' ? base : `${base.replace(/\/+$/, '')}/v1/metrics` };
}

function prometheusSettings(env: NodeJS.ProcessEnv): PrometheusSettings {
  const host = env.OTEL_EXPORTER_PROMETHEUS_HOST?.trim() || 'localhost';
  const text = env.OTEL_EXPORTER_PROMETHEUS_PORT?.trim();
  const number = text ? Number(text) : NaN;
  const port = Number.isInteger(number) && number >= 0 && number <= 65_535 ? number : DEFAULT_PROMETHEUS_PORT;
  return { host, port, ports: port === 0 ? 1 : Math.min(PROMETHEUS_PORT_RANGE, 65_536 - port) };
}

function positiveMs(text: string | undefined): number | null {
  const value = Number(text?.trim() || NaN);
  return Number.isFinite(value) && value > 0 ? Math.round(value) : null;
}

/** The address a /metrics endpoint is reached at, for its listening host and port. */
export function metricsUrl(host: string, port: number, hostName: string): string {
  // An endpoint on every interface is reached by the machine's name.
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? hostName : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}/metrics`;
}
