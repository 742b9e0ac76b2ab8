import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { TierflowInstrument } from './prometheus-names.js';

/**
 * The Prometheus text exposition of `instruments`, each recorded once with `value` and every one
 * of its attributes set (to `attributeValue(name)`), made by the same serializer `tierflow serve`
 * and the workers use: what a scrape of them reads, without needing their code.
 */
export async function exposeInstruments(instruments: readonly TierflowInstrument[], value: number, attributeValue: (attribute: string) => string = () => 'x'): Promise<string> {
  // A reader that serves nothing itself: the test collects and serialises on demand.
  const reader = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ readers: [reader] });
  const meter = provider.getMeter('@tierflow/runtime');
  for (const instrument of instruments) {
    const attributes = Object.fromEntries(instrument.attributes.map((name) => [name, attributeValue(name)]));
    const options = { unit: instrument.unit };
    switch (instrument.kind) {
      case 'counter':
        meter.createCounter(instrument.name, options).add(value, attributes);
        break;
      case 'histogram':
        meter.createHistogram(instrument.name, options).record(value, attributes);
        break;
      case 'gauge':
        meter.createObservableGauge(instrument.name, options).addCallback((result) => result.observe(value, attributes));
        break;
    }
  }
  const { resourceMetrics, errors } = await reader.collect();
  if (errors.length > 0) throw new Error(`collecting metrics: ${errors.map(String).join('; ')}`);
  await provider.shutdown();
  return new PrometheusSerializer(undefined, false, undefined, true).serialize(resourceMetrics);
}

/** One sample line of a text exposition: its metric name and label names. */
export interface ExposedSample {
  readonly metric: string;
  readonly labels: readonly string[];
}

/** The samples of a Prometheus text exposition (comments and blank lines skipped). */
export function exposedSamples(text: string): ExposedSample[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g)].map((label) => label[1]!);
      return { metric: match[1]!, labels };
    });
}
