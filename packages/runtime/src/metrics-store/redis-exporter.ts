import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { AggregationTemporality, PeriodicExportingMetricReader, type MetricReader, type PushMetricExporter, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { RedisClient } from '@tierflow/beads';
import { z } from 'zod';
import { ConfigError } from '../config/read-env.js';
import { METRIC_STORE_INTERVAL_MS } from '../config/runtime-settings.js';
import { METRIC_STORE_DEFAULTS, writeToStore, type MetricStoreLimits, type MetricWriter } from './metric-store.js';
import { writeGroups } from './store-write.js';

/** Where an exporter writes: the cell's prefix and who it writes as. */
export interface RedisMetricExporterOptions {
  readonly redis: RedisClient;
  /** The cell's prefix the worker writes under (one cell: a process serving several writes into the first). */
  readonly prefix: string;
  readonly writer: MetricWriter;
  readonly limits?: MetricStoreLimits;
  /** The clock that names the minute an export goes into. */
  readonly now?: () => number;
  /** Told of a failed write (the export callback gets the failure too); never thrown. */
  readonly onError?: (error: Error) => void;
}

/**
 * An OTel push exporter into the deployment metric store: asks for deltas, and writes each export
 * with one script into the writer's totals and its minute's hash. A write that fails answers the
 * SDK with a failed result (the SDK logs it through its diag logger); nothing is thrown into the
 * process that records. The exports of one exporter never overlap.
 */
export class RedisMetricExporter implements PushMetricExporter {
  private inFlight: Promise<void> | null = null;
  private shut = false;

  constructor(private readonly options: RedisMetricExporterOptions) {}

  export(metrics: ResourceMetrics, resultCallback: (result: ExportResult) => void): void {
    if (this.shut) return resultCallback({ code: ExportResultCode.FAILED, error: new Error('the metric store exporter is shut down') });
    // One write at a time: while Redis is away its writes wait, and exports piling up behind
    // them would hold every delta in memory; a delta that cannot be written is lost, as the SDK
    // loses any export that fails.
    if (this.inFlight) return this.fail(resultCallback, new Error('the metric store is still writing the previous export'));
    const { redis, prefix, writer, limits = METRIC_STORE_DEFAULTS, now = Date.now } = this.options;
    this.inFlight = writeToStore(redis, { prefix, writer }, writeGroups(metrics), now(), limits).then(
      () => resultCallback({ code: ExportResultCode.SUCCESS }),
      (caught: unknown) => this.fail(resultCallback, caught instanceof Error ? caught : new Error(String(caught))),
    );
    void this.inFlight.finally(() => (this.inFlight = null));
  }

  private fail(resultCallback: (result: ExportResult) => void, error: Error): void {
    this.options.onError?.(error);
    resultCallback({ code: ExportResultCode.FAILED, error });
  }

  selectAggregationTemporality(): AggregationTemporality {
    return AggregationTemporality.DELTA;
  }

  async forceFlush(): Promise<void> {
    await this.inFlight;
  }

  async shutdown(): Promise<void> {
    this.shut = true;
    await this.inFlight;
  }
}

export { METRIC_STORE_INTERVAL_MS };

const intervalSchema = z.int().min(1_000).max(300_000);

export interface MetricStoreReaderOptions extends RedisMetricExporterOptions {
  /** How often it exports, ms (1 s to 5 min; {@link METRIC_STORE_INTERVAL_MS} when left out). */
  readonly intervalMs?: number;
}

/**
 * A metric reader for a worker's MeterProvider that exports into the deployment metric store every
 * `intervalMs`: what `tierflow serve`'s /metrics and the dashboard's Metrics page read.
 *
 * @throws ConfigError (code `invalid_config`) for an interval out of bounds.
 */
export function metricStoreReader(options: MetricStoreReaderOptions): MetricReader {
  const intervalMs = options.intervalMs ?? METRIC_STORE_INTERVAL_MS;
  if (!intervalSchema.safeParse(intervalMs).success) throw new ConfigError([`metric store interval ${intervalMs} ms: must be a whole number of milliseconds from 1000 to 300000`]);
  // An export may take as long as its interval: a slow Redis delays the next one, never stacks them.
  return new PeriodicExportingMetricReader({ exporter: new RedisMetricExporter(options), exportIntervalMillis: intervalMs, exportTimeoutMillis: intervalMs });
}
