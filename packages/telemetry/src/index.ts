/**
 * OpenTelemetry for Tierflow processes. Libraries use `@opentelemetry/api` only; a process
 * starts the SDK once, before its worker, and shuts it down last so buffered spans are sent.
 *
 * ```ts
 * import { startTelemetry } from '@tierflow/telemetry';
 *
 * const telemetry = await startTelemetry({ serviceName: 'tierflow-fleet' });
 * const worker = await startFleetWorker({ runtime });
 * process.once('SIGTERM', async () => { await worker.close(); await telemetry.shutdown(); });
 * ```
 */
export { SHUTDOWN_TIMEOUT_MS, startTelemetry } from './start-telemetry.js';
export { DEFAULT_OTLP_ENDPOINT, otlpCollector } from './start-traces.js';
export { DEFAULT_PROMETHEUS_PORT, PROMETHEUS_PORT_RANGE, resolveMetrics } from './metrics-config.js';
export type { MetricExporterName, MetricsConfig, OtlpMetricsProtocol, PrometheusSettings } from './metrics-config.js';
export { SyncContextManager } from './sync-context-manager.js';
export type { ExportedTracesListener } from './exported-traces.js';
export type { Telemetry, TelemetryOptions } from './start-telemetry.js';
