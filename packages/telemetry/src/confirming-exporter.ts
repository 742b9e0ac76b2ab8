import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { ExportedTraces, type ExportedTracesListener } from './exported-traces.js';

/**
 * Another exporter (the SDK's OTLP over gRPC) that tells, as the OTLP/HTTP one does, which traces
 * each export delivered and how many spans were not, so `tierflow trace` can say whether a
 * run's spans reached the collector whatever the protocol.
 */
export class ConfirmingSpanExporter implements SpanExporter {
  private readonly traces = new ExportedTraces();
  private unexportedSpans = 0;

  constructor(
    private readonly inner: SpanExporter,
    /** Where the spans go, as warnings name it. */
    readonly url: string,
  ) {}

  get unexported(): number {
    return this.unexportedSpans;
  }

  onExported(listener: ExportedTracesListener): void {
    this.traces.on(listener);
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) this.traces.delivered(spans);
      else this.unexportedSpans += spans.length;
      done(result);
    });
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  /** Nothing to cut short here: the gRPC exporter's shutdown is bounded by the SDK's export timeout. */
  abort(): void {}
}
