import { hostname } from 'node:os';
import { metrics } from '@opentelemetry/api';
import type { MeterProvider, MetricReader, PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { MetricsConfig } from './metrics-config.js';
import type { PrometheusEndpoint } from './prometheus-endpoint.js';
import type { QuietMetricExporter } from './quiet-metric-exporter.js';

/** A process's meter provider, registered globally, with what it was given to read it. */
export interface StartedMetrics {
  /** Where this process's /metrics endpoint is scraped; null without one. */
  readonly url: string | null;
  /** Exports the last figures (push exporters, extra readers), closes the endpoint, unregisters. Bounded by `timeoutMs`; never throws. */
  shutdown(timeoutMs: number): Promise<'done' | 'late' | Error>;
}

/**
 * Starts metrics: a MeterProvider with a reader per exporter of `config` and the caller's own
 * `extra` readers, registered as the global one, so `metrics.getMeter()` records into it from now
 * on. Null when nothing would read the figures (no exporter, no extra reader): then nothing is
 * loaded and nothing records. The SDK is loaded here, only when a reader needs it.
 */
export async function startMetrics(
  config: MetricsConfig,
  options: { readonly serviceName: string; readonly extra: readonly MetricReader[]; readonly warnOnce: (message: string) => void },
): Promise<StartedMetrics | null> {
  if (!config.on || (config.exporters.length === 0 && options.extra.length === 0)) return null;
  const [sdk, { resourceFromAttributes, defaultResource }] = await Promise.all([import('@opentelemetry/sdk-metrics'), import('@opentelemetry/resources')]);
  const readers: MetricReader[] = [...options.extra];
  const quiet: QuietMetricExporter[] = [];
  const periodic = (exporter: PushMetricExporter) => new sdk.PeriodicExportingMetricReader({ exporter, exportIntervalMillis: config.intervalMs, exportTimeoutMillis: config.timeoutMs });
  if (config.otlp) {
    const { protocol, url } = config.otlp;
    const failed = (error: Error | undefined) => options.warnOnce(`metrics could not be exported to ${url} (${error?.message ?? 'refused'}); carrying on without them`);
    const { otlpHttpMetricExporter, QuietMetricExporter } = await import('./quiet-metric-exporter.js');
    const exporter =
      protocol === 'grpc'
        ? new QuietMetricExporter(new (await import('@opentelemetry/exporter-metrics-otlp-grpc')).OTLPMetricExporter({ url }), failed)
        : otlpHttpMetricExporter(protocol, url, failed);
    quiet.push(exporter);
    readers.push(periodic(exporter));
  }
  if (config.exporters.includes('console')) readers.push(periodic(new sdk.ConsoleMetricExporter()));
  let endpoint: PrometheusEndpoint | null = null;
  if (config.prometheus) {
    const [{ PrometheusExporter }, { servePrometheus }] = await Promise.all([import('@opentelemetry/exporter-prometheus'), import('./prometheus-endpoint.js')]);
    const exporter = new PrometheusExporter({ preventServerStart: true });
    const served = await servePrometheus(exporter, config.prometheus);
    if (served.endpoint) {
      endpoint = served.endpoint;
      readers.push(exporter);
    } else options.warnOnce(`${served.problem}; carrying on without it`);
  }
  if (readers.length === 0) return null;
  const provider: MeterProvider = new sdk.MeterProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({
        'service.name': options.serviceName,
        // As `tierflow workers` and the runs' recordings name a process.
        'service.instance.id': `${hostname()}:${process.pid}`,
      }),
    ),
    readers,
  });
  metrics.setGlobalMeterProvider(provider);
  return {
    url: endpoint?.url ?? null,
    shutdown: async (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
      const done = provider.shutdown().then(
        () => 'done' as const,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
      try {
        return await Promise.race([done, late]);
      } finally {
        clearTimeout(timer);
        for (const exporter of quiet) exporter.abort();
        await endpoint?.close();
        // Unregistered, so that the process can start metrics again.
        metrics.disable();
      }
    },
  };
}
