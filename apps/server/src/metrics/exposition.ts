import { ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import type { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { cumulativeBuckets, type GaugeSample, type StoredMetrics, type StoredSeries } from '@tierflow/runtime/admin';

/** Stored attributes as OTel's: a list becomes its JSON, as the Prometheus serializer would write it anyway. */
const otelAttributes = (attributes: StoredSeries['attributes']): Attributes =>
  Object.fromEntries(Object.entries(attributes).map(([key, value]) => [key, Array.isArray(value) ? JSON.stringify(value) : (value as string | number | boolean)]));

/** The scope the workers' instruments are made in: serve's figures carry it too, so both endpoints name them alike. */
export const METRICS_SCOPE = '@tierflow/runtime';

/** A gauge serve computes at scrape, with its description. */
export interface DeploymentGauge {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  readonly samples: readonly GaugeSample[];
}

const descriptorOf = (name: string, meta: { readonly unit: string; readonly description: string } | undefined) => ({
  name,
  description: meta?.description ?? '',
  unit: meta?.unit ?? '',
  valueType: ValueType.DOUBLE,
});

/** One stored metric as OTel metric data (cumulative: the store's totals since the deployment began). */
function storedMetricData(name: string, series: readonly StoredSeries[], metrics: StoredMetrics, time: HrTime): MetricData | null {
  const first = series[0];
  if (!first) return null;
  const descriptor = descriptorOf(name, metrics.meta.get(name));
  const base = { descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE } as const;
  const at = { startTime: time, endTime: time };
  switch (first.kind) {
    case 'counter':
    case 'updown':
      return {
        ...base,
        dataPointType: DataPointType.SUM,
        isMonotonic: first.kind === 'counter',
        dataPoints: series.map((one) => ({ ...at, attributes: otelAttributes(one.attributes), value: one.value })),
      };
    case 'histogram':
      return {
        ...base,
        dataPointType: DataPointType.HISTOGRAM,
        dataPoints: series.map((one) => {
          const cumulative = cumulativeBuckets(one);
          // The serializer takes counts per bucket, the last one past the finite bounds.
          const counts = cumulative.map((bucket, index) => bucket.count - (cumulative[index - 1]?.count ?? 0));
          const boundaries = cumulative.filter((bucket) => bucket.le !== Infinity).map((bucket) => bucket.le);
          return { ...at, attributes: otelAttributes(one.attributes), value: { buckets: { boundaries, counts }, count: one.count, sum: one.sum } };
        }),
      };
    case 'gauge':
      // Gauges have no totals: serve's own gauges are computed at scrape.
      return null;
  }
}

/**
 * What serve's /metrics shows, as OTel metric data: the store's totals (counters as counters,
 * histograms as histograms with the bounds they were recorded with) and the gauges computed at
 * scrape, under one resource and the workers' scope. Pure.
 */
export function deploymentResourceMetrics(totals: StoredMetrics, gauges: readonly DeploymentGauge[], nowMs: number): ResourceMetrics {
  const time: HrTime = [Math.floor(nowMs / 1000), (nowMs % 1000) * 1e6];
  const byName = new Map<string, StoredSeries[]>();
  for (const series of totals.series.values()) byName.set(series.name, [...(byName.get(series.name) ?? []), series]);
  const gaugeNames = new Set(gauges.map((gauge) => gauge.name));
  const stored = [...byName.entries()]
    .filter(([name]) => !gaugeNames.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([name, series]) => storedMetricData(name, series, totals, time) ?? []);
  const computed: MetricData[] = gauges.map((gauge) => ({
    descriptor: descriptorOf(gauge.name, gauge),
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPointType: DataPointType.GAUGE,
    dataPoints: gauge.samples.map((sample) => ({ startTime: time, endTime: time, attributes: { ...sample.attributes }, value: sample.value })),
  }));
  return {
    resource: resourceFromAttributes({ 'service.name': 'tierflow-serve' }),
    scopeMetrics: [{ scope: { name: METRICS_SCOPE }, metrics: [...stored, ...computed] }],
  };
}

let serializer: Promise<PrometheusSerializer> | null = null;

/**
 * The Prometheus text exposition of a deployment's metrics, as the OTel Prometheus exporter writes
 * it. The exporter's package is loaded on the first scrape: a server nobody scrapes never pays for it.
 */
export async function prometheusText(metrics: ResourceMetrics): Promise<string> {
  serializer ??= import('@opentelemetry/exporter-prometheus').then(({ PrometheusSerializer }) => new PrometheusSerializer());
  return (await serializer).serialize(metrics);
}
