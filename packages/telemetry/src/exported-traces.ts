import type { ReadableSpan } from '@opentelemetry/sdk-trace';

/** Told, after each export the collector took, the ids of the traces its spans belong to. */
export type ExportedTracesListener = (traceIds: ReadonlySet<string>) => void;

/** The listeners an exporter tells of the traces each export delivered. */
export class ExportedTraces {
  private readonly listeners: ExportedTracesListener[] = [];

  /** Calls `listener` after each export the collector took; a listener that throws is ignored. */
  on(listener: ExportedTracesListener): void {
    this.listeners.push(listener);
  }

  /** Tells every listener the traces of `spans`, which the collector took. */
  delivered(spans: readonly ReadableSpan[]): void {
    if (this.listeners.length === 0) return;
    const traceIds = new Set(spans.map((span) => span.spanContext().traceId));
    for (const listener of this.listeners) {
      try {
        listener(traceIds);
      } catch {
        // What a listener does with the news is its own affair; the export went out.
      }
    }
  }
}
