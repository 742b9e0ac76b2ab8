import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPMetricExporterBase } from '@opentelemetry/exporter-metrics-otlp-http';
import { createOtlpNetworkExportDelegate } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExporterMetrics } from '@opentelemetry/otlp-exporter-base/node-http';
import { JsonMetricsSerializer, MetricsExporterMetricsHelper, ProtobufMetricsSerializer } from '@opentelemetry/otlp-transformer';
import { AggregationTemporality, AggregationType, type AggregationOption, type InstrumentType, type PushMetricExporter, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { OtlpHttpTransport } from './otlp-http-transport.js';

/** The self-observability component type of an OTLP/HTTP metric exporter (semantic conventions). */
const COMPONENT_TYPE = 'otlp_http_metric_exporter';

/**
 * A push exporter whose failures are told once, through `onFailure`, and then dropped: the
 * periodic reader does not retry an export either, it only hands the failure to the global error
 * handler, which speaks for the spans. Aggregation and temporality are the inner exporter's.
 */
export class QuietMetricExporter implements PushMetricExporter {
  constructor(
    private readonly inner: PushMetricExporter,
    private readonly onFailure: (error: Error | undefined) => void,
    private readonly abortInFlight: () => void = () => undefined,
  ) {}

  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    this.inner.export(metrics, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.onFailure(result.error);
      done({ code: ExportResultCode.SUCCESS });
    });
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  /** Gives up at once on what is in flight (a hanging collector), so nothing holds the process. */
  abort(): void {
    this.abortInFlight();
  }

  selectAggregationTemporality(instrumentType: InstrumentType): AggregationTemporality {
    return this.inner.selectAggregationTemporality?.(instrumentType) ?? AggregationTemporality.CUMULATIVE;
  }

  selectAggregation(instrumentType: InstrumentType): AggregationOption {
    return this.inner.selectAggregation?.(instrumentType) ?? { type: AggregationType.DEFAULT };
  }
}

/**
 * The SDK's OTLP/HTTP metric exporter (its encodings, its temporality from
 * OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE, its headers, compression and TLS settings)
 * on the transport the spans use, which does not retry a collector that refuses the connection
 * and stops everything in flight at shutdown.
 */
export function otlpHttpMetricExporter(protocol: 'http/protobuf' | 'http/json', url: string, onFailure: (error: Error | undefined) => void): QuietMetricExporter {
  const contentType = protocol === 'http/json' ? 'application/json' : 'application/x-protobuf';
  const settings = convertLegacyHttpOptions({ url }, 'METRICS', 'v1/metrics', { 'Content-Type': contentType });
  const transport = new OtlpHttpTransport(settings);
  const serializer = protocol === 'http/json' ? JsonMetricsSerializer : ProtobufMetricsSerializer;
  const metrics = createOtlpHttpExporterMetrics(COMPONENT_TYPE, MetricsExporterMetricsHelper, settings.url, undefined);
  const inner = new OTLPMetricExporterBase(createOtlpNetworkExportDelegate(settings, serializer, metrics, transport));
  return new QuietMetricExporter(inner, onFailure, () => transport.shutdown());
}
