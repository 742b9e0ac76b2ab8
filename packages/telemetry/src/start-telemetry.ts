import type { MetricReader } from '@opentelemetry/sdk-metrics';
import type { ExportedTracesListener } from './exported-traces.js';
import { resolveMetrics } from './metrics-config.js';
import { startMetrics, type StartedMetrics } from './start-metrics.js';
import { startTraces, tracesOn, type StartedTraces } from './start-traces.js';

export interface TelemetryOptions {
  /** `tierflow-monitor`, …; OTEL_SERVICE_NAME wins when set. */
  readonly serviceName: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Where the one warning of each signal goes when it cannot be exported; stderr by default. */
  readonly warn?: (message: string) => void;
  /**
   * Carry the active context across `await` (AsyncLocalStorage), so spans that code started
   * with no explicit parent nest under the running hop. Off by default: Tierflow passes every
   * parent explicitly, and on Node 20 the async context hooks every promise the process makes,
   * which costs a quarter of a busy worker's throughput. TIERFLOW_OTEL_ASYNC_CONTEXT=true turns it on.
   */
  readonly asyncContext?: boolean;
  /**
   * Whether the process records metrics (TIERFLOW_METRICS as the runtime's settings read it);
   * when left out, on unless TIERFLOW_METRICS=off. OTEL_SDK_DISABLED=true turns them off whatever this says.
   */
  readonly metrics?: boolean;
  /** Readers of the process's metrics besides the exporters OTEL_METRICS_EXPORTER names (a deployment's own store, say). */
  readonly metricReaders?: readonly MetricReader[];
}

export interface Telemetry {
  /** False when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none: no span is recorded or sent. */
  readonly enabled: boolean;
  /** True when a meter provider records this process's metrics (metrics on, and something reads them). */
  readonly metricsOn: boolean;
  /** Where this process's Prometheus endpoint is scraped (OTEL_METRICS_EXPORTER=prometheus); null without one. */
  readonly metricsUrl: string | null;
  /**
   * Sends the spans and the metrics still buffered, then stops; gives up on a collector that has
   * not taken them within {@link SHUTDOWN_TIMEOUT_MS}, so a process never waits on telemetry. Never throws.
   */
  shutdown(): Promise<void>;
  /** Spans the OTLP exporter could not deliver (refused, failed, or dropped while the collector was down). */
  readonly unexportedSpans: number;
  /**
   * Calls `listener` after each export the collector took (OTLP, over HTTP or gRPC), with the ids
   * of the traces its spans belong to: so a process can tell that a run's spans went out. Never
   * called when tracing is off or another exporter (console, zipkin) was chosen.
   */
  onExported(listener: ExportedTracesListener): void;
}

/**
 * The longest shutdown waits for the last spans and metrics to be taken. A listening collector
 * takes them in milliseconds; this only cuts short one that is hanging. No standard OTEL_*
 * variable bounds it.
 */
export const SHUTDOWN_TIMEOUT_MS = 500;

/**
 * Starts OpenTelemetry for a Tierflow process: its traces (start-traces.ts) unless
 * OTEL_TRACES_EXPORTER=none, and its metrics (start-metrics.ts) unless TIERFLOW_METRICS=off,
 * each without the other; OTEL_SDK_DISABLED=true turns both off. Each signal warns at most once
 * when it cannot be exported, and nothing else breaks. What each needs is loaded only when it is on.
 */
export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  const env = options.env ?? process.env;
  const warn = options.warn ?? ((message: string) => process.stderr.write(`${message}\n`));
  const warnOnce = oneWarning(warn);
  const serviceName = env.OTEL_SERVICE_NAME ?? options.serviceName;
  const config = resolveMetrics(env, options.metrics);
  const metricsWarning = warnOnce();
  if (config.unknown.length > 0) metricsWarning(`OTEL_METRICS_EXPORTER names ${config.unknown.join(', ')}, not one of otlp, prometheus, console, none: left out`);
  const [traces, metrics]: [StartedTraces | null, StartedMetrics | null] = await Promise.all([
    tracesOn(env) ? startTraces({ serviceName, env, asyncContext: options.asyncContext ?? env.TIERFLOW_OTEL_ASYNC_CONTEXT === 'true', warnOnce: warnOnce() }) : null,
    startMetrics(config, { serviceName, extra: options.metricReaders ?? [], warnOnce: metricsWarning }),
  ]);
  return {
    enabled: traces !== null,
    metricsOn: metrics !== null,
    metricsUrl: metrics?.url ?? null,
    get unexportedSpans() {
      return traces?.unexportedSpans ?? 0;
    },
    onExported: (listener) => traces?.onExported(listener),
    shutdown: async () => {
      const closing = metrics?.shutdown(SHUTDOWN_TIMEOUT_MS).then((result) => {
        if (result === 'late') metricsWarning(`the last metrics were not taken within ${SHUTDOWN_TIMEOUT_MS} ms; exiting without them`);
        else if (result instanceof Error) metricsWarning(`the last metrics could not be exported (${result.message})`);
      });
      await Promise.all([traces?.shutdown(SHUTDOWN_TIMEOUT_MS), closing]);
    },
  };
}

/** A maker of one-warning functions, each `telemetry: `-prefixed, each saying its first message only. */
function oneWarning(warn: (message: string) => void): () => (message: string) => void {
  return () => {
    let warned = false;
    return (message) => {
      if (warned) return;
      warned = true;
      warn(`telemetry: ${message}`);
    };
  };
}
