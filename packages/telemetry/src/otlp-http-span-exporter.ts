import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { createOtlpNetworkExportDelegate, OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExporterMetrics } from '@opentelemetry/otlp-exporter-base/node-http';
import { JsonTraceSerializer, ProtobufTraceSerializer, TraceExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { ExportedTraces, type ExportedTracesListener } from './exported-traces.js';
import { OtlpHttpTransport, type OtlpHttpSettings } from './otlp-http-transport.js';

export type OtlpHttpProtocol = 'http/protobuf' | 'http/json';

/** The self-observability component type of an OTLP/HTTP span exporter (semantic conventions). */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

/**
 * The SDK's OTLP/HTTP span exporter (its configuration from OTEL_EXPORTER_OTLP_*, its encoding, its
 * bounded queue of exports) on {@link OtlpHttpTransport}. While the collector is down, a batch is
 * dropped before it is encoded, and counted.
 */
export class OtlpHttpSpanExporter implements SpanExporter {
  private readonly inner: OTLPExporterBase<ReadableSpan[]>;
  private readonly transport: OtlpHttpTransport;
  private unexportedSpans = 0;
  private readonly traces = new ExportedTraces();
  /** Where the spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT and /v1/traces. */
  readonly url: string;

  constructor(protocol: OtlpHttpProtocol, settings: OtlpHttpSettings = settingsFromEnv(protocol)) {
    this.url = settings.url;
    this.transport = new OtlpHttpTransport(settings);
    const serializer = protocol === 'http/json' ? JsonTraceSerializer : ProtobufTraceSerializer;
    const metrics = createOtlpHttpExporterMetrics(COMPONENT_TYPE, TraceExporterMetricsHelper, settings.url, undefined);
    this.inner = new OTLPExporterBase(createOtlpNetworkExportDelegate(settings, serializer, metrics, this.transport));
  }

  /** Spans that could not be delivered: refused, failed, or dropped while the collector was down. */
  get unexported(): number {
    return this.unexportedSpans;
  }

  /** Calls `listener` after each export the collector took; a listener that throws is ignored. */
  onExported(listener: ExportedTracesListener): void {
    this.traces.on(listener);
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.transport.refusing) {
      this.unexportedSpans += spans.length;
      done({ code: ExportResultCode.FAILED, error: new Error('the collector is unreachable; spans are dropped for now') });
      return;
    }
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.unexportedSpans += spans.length;
      else this.traces.delivered(spans);
      done(result);
    });
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  /** Waits for the exports in flight, then closes the connections. */
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  /** Gives up at once on every export in flight, and refuses later ones. */
  abort(): void {
    this.transport.shutdown();
  }
}

function settingsFromEnv(protocol: OtlpHttpProtocol): OtlpHttpSettings {
  const contentType = protocol === 'http/json' ? 'application/json' : 'application/x-protobuf';
  return convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': contentType });
}
