import { context, diag, DiagLogLevel } from '@opentelemetry/api';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { SyncContextManager } from './sync-context-manager.js';

export interface TelemetryOptions {
  /** `tierflow-monitor`, …; OTEL_SERVICE_NAME wins when set. */
  readonly serviceName: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Where the one warning goes when spans cannot be exported; stderr by default. */
  readonly warn?: (message: string) => void;
  /**
   * Carry the active context across `await` (AsyncLocalStorage), so spans that code started
   * with no explicit parent nest under the running hop. Off by default: Tierflow passes every
   * parent explicitly, and on Node 20 the async context hooks every promise the process makes,
   * which costs a quarter of a busy worker's throughput. TIERFLOW_OTEL_ASYNC_CONTEXT=true turns it on.
   */
  readonly asyncContext?: boolean;
}

export interface Telemetry {
  /** False when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none: nothing is recorded or sent. */
  readonly enabled: boolean;
  /** Flushes the spans still buffered, then stops. Never throws. */
  shutdown(): Promise<void>;
}

export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';

/** Spans per export and the longest a span waits to be sent, unless OTEL_BSP_* say otherwise. */
export const EXPORT_BATCH_SIZE = 64;
export const EXPORT_DELAY_MS = 1000;

/**
 * Starts the OpenTelemetry Node SDK for a Tierflow process: traces over OTLP/HTTP (protobuf,
 * or JSON with OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json) to OTEL_EXPORTER_OTLP_ENDPOINT
 * (default http://localhost:4318, Jaeger's OTLP port), batched; resource attributes for the
 * service, host and process. Every standard OTEL_* variable works, since the SDK reads them.
 * When no collector listens, nothing breaks: export errors become one warning, not one per span.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  const env = options.env ?? process.env;
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') {
    return { enabled: false, shutdown: () => Promise.resolve() };
  }
  env.OTEL_EXPORTER_OTLP_ENDPOINT ??= DEFAULT_OTLP_ENDPOINT;
  env.OTEL_TRACES_EXPORTER ??= 'otlp';
  // Smaller batches, sent every second: encoding a batch holds the event loop, and the SDK's
  // 512 spans every 5 s cost a busy worker about a tenth of its throughput and lengthened p99.
  env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ??= String(EXPORT_BATCH_SIZE);
  env.OTEL_BSP_SCHEDULE_DELAY ??= String(EXPORT_DELAY_MS);
  // Only traces: metrics and logs are not ours to export.
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  const warn = options.warn ?? ((message: string) => process.stderr.write(`${message}\n`));
  let warned = false;
  setGlobalErrorHandler((error) => {
    if (warned) return;
    warned = true;
    warn(`telemetry: spans could not be exported to ${env.OTEL_EXPORTER_OTLP_ENDPOINT} (${errorText(error)}); carrying on without them`);
  });
  diag.disable();
  diag.setLogger({ error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, verbose: () => undefined }, DiagLogLevel.NONE);
  const asyncContext = options.asyncContext ?? env.TIERFLOW_OTEL_ASYNC_CONTEXT === 'true';
  // Left undefined, the SDK registers its AsyncLocalStorage manager.
  const contextManager = asyncContext ? undefined : new SyncContextManager();
  const sdk = new NodeSDK({ serviceName: env.OTEL_SERVICE_NAME ?? options.serviceName, instrumentations: [], ...(contextManager ? { contextManager } : {}) });
  sdk.start();
  return {
    enabled: true,
    shutdown: async () => {
      try {
        await sdk.shutdown();
      } catch (error) {
        if (!warned) warn(`telemetry: shutdown failed (${errorText(error)})`);
      } finally {
        context.disable();
      }
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
