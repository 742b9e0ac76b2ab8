import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import type { ExportedTracesListener } from './exported-traces.js';
import type { OtlpHttpProtocol } from './otlp-http-span-exporter.js';
import { SyncContextManager } from './sync-context-manager.js';

export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';
const DEFAULT_OTLP_GRPC_ENDPOINT = 'http://localhost:4317';

/** Spans per export and the longest a span waits to be sent, unless OTEL_BSP_* say otherwise. */
export const EXPORT_BATCH_SIZE = 512;
export const EXPORT_DELAY_MS = 1000;

/** The traces of a process, started. */
export interface StartedTraces {
  readonly unexportedSpans: number;
  onExported(listener: ExportedTracesListener): void;
  /** Sends the spans still buffered, within `timeoutMs`, then unregisters; never throws. */
  shutdown(timeoutMs: number): Promise<void>;
}

/** Whether this environment traces: not with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. */
export function tracesOn(env: NodeJS.ProcessEnv): boolean {
  return env.OTEL_SDK_DISABLED !== 'true' && env.OTEL_TRACES_EXPORTER !== 'none';
}

/**
 * Starts the OpenTelemetry Node SDK for a process's traces: over OTLP/HTTP (protobuf, or JSON
 * with OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json) to OTEL_EXPORTER_OTLP_ENDPOINT (default
 * http://localhost:4318, Jaeger's OTLP port), batched; resource attributes for the service, host
 * and process. Every standard OTEL_* variable of traces works, since the SDK reads them. When no
 * collector listens, nothing breaks: export errors become one warning, not one per span, a
 * refused connection is not retried (spans are dropped until a cool-down has passed), and
 * shutdown does not wait. Metrics are not the Node SDK's here (start-metrics.ts).
 *
 * The SDK and the exporter are loaded here, only when tracing is on: they are about a third of
 * a worker's start-up, and a process that does not trace never pays for them.
 */
export async function startTraces(options: {
  readonly serviceName: string;
  readonly env: NodeJS.ProcessEnv;
  readonly asyncContext: boolean;
  readonly warnOnce: (message: string) => void;
}): Promise<StartedTraces> {
  const { env, warnOnce } = options;
  const [{ setGlobalErrorHandler }, { NodeSDK }] = await Promise.all([import('@opentelemetry/core'), import('@opentelemetry/sdk-node')]);
  env.OTEL_TRACES_EXPORTER ??= 'otlp';
  const grpc = isOtlpGrpc(env);
  // gRPC's exporter has a default of its own (localhost:4317).
  if (!grpc) env.OTEL_EXPORTER_OTLP_ENDPOINT ??= DEFAULT_OTLP_ENDPOINT;
  // The SDK's batches of 512, sent at least every second rather than every 5 s, so a trace shows
  // up in a second. A busy worker's warm code encodes a batch in a few milliseconds; batches of
  // 64 made eight times the requests for the same spans, which cost the workers and the collector
  // more than the encoding (test/bench/RESULTS.md, 2026-11-28, night).
  env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ??= String(EXPORT_BATCH_SIZE);
  env.OTEL_BSP_SCHEDULE_DELAY ??= String(EXPORT_DELAY_MS);
  // Logs are not ours to export.
  env.OTEL_LOGS_EXPORTER ??= 'none';
  diag.disable();
  diag.setLogger({ error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, verbose: () => undefined }, DiagLogLevel.NONE);
  // Left undefined, the SDK registers its AsyncLocalStorage manager.
  const contextManager = options.asyncContext ? undefined : new SyncContextManager();
  // Other exporters (console, zipkin) are the SDK's own, chosen from the environment.
  const exporter = await otlpExporter(env);
  const collector = exporter?.url ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  setGlobalErrorHandler((error) => warnOnce(`spans could not be exported to ${collector} (${errorText(error)}); carrying on without them`));
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? options.serviceName,
    instrumentations: [],
    // No readers: the SDK makes no meter provider of its own from OTEL_METRICS_EXPORTER.
    metricReaders: [],
    ...(contextManager ? { contextManager } : {}),
    ...(exporter ? { traceExporter: exporter } : {}),
  });
  sdk.start();
  return {
    get unexportedSpans() {
      return exporter?.unexported ?? 0;
    },
    onExported: (listener) => exporter?.onExported(listener),
    shutdown: async (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
      const done = sdk.shutdown().then(
        () => null,
        (error: unknown) => error,
      );
      try {
        const result = await Promise.race([done, late]);
        if (result === 'late') warnOnce(`the collector at ${collector} did not take the last spans within ${timeoutMs} ms; exiting without them`);
        else if (result !== null) warnOnce(`spans could not be exported to ${collector} (${errorText(result)})`);
      } finally {
        clearTimeout(timer);
        // Ends what is still in flight (a hanging request), so nothing keeps the process alive.
        exporter?.abort();
        // Unregistered, so that the process can start telemetry again.
        trace.disable();
        propagation.disable();
        context.disable();
      }
    },
  };
}

/** The OTLP exporter, over HTTP (ours) or gRPC (the SDK's, told of), or undefined for another the SDK picks. */
async function otlpExporter(env: NodeJS.ProcessEnv) {
  const protocol = otlpHttpProtocol(env);
  if (protocol) return new (await import('./otlp-http-span-exporter.js')).OtlpHttpSpanExporter(protocol);
  if (!isOtlpGrpc(env)) return undefined;
  const [{ OTLPTraceExporter }, { ConfirmingSpanExporter }] = await Promise.all([import('@opentelemetry/exporter-trace-otlp-grpc'), import('./confirming-exporter.js')]);
  return new ConfirmingSpanExporter(new OTLPTraceExporter(), otlpCollector(env)!);
}

function isOtlpGrpc(env: NodeJS.ProcessEnv): boolean {
  return (env.OTEL_TRACES_EXPORTER?.trim() || 'otlp') === 'otlp' && (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim() === 'grpc';
}

/**
 * Where a process with this environment sends its spans over OTLP: the traces endpoint, else the
 * OTLP endpoint, else the default of its protocol (4317 for gRPC, 4318 over HTTP); null when
 * another exporter (console, zipkin, none) is chosen.
 */
export function otlpCollector(env: NodeJS.ProcessEnv): string | null {
  if ((env.OTEL_TRACES_EXPORTER?.trim() || 'otlp') !== 'otlp') return null;
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? (isOtlpGrpc(env) ? DEFAULT_OTLP_GRPC_ENDPOINT : DEFAULT_OTLP_ENDPOINT);
}

/** The OTLP/HTTP encoding to export with, or undefined when the SDK should pick the exporter itself. */
export function otlpHttpProtocol(env: NodeJS.ProcessEnv): OtlpHttpProtocol | undefined {
  if (env.OTEL_TRACES_EXPORTER?.trim() !== 'otlp') return undefined;
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
  return protocol === 'http/protobuf' || protocol === 'http/json' ? protocol : undefined;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
