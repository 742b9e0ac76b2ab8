import { AggregationTemporality, DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { canonicalAttributes, metaField, storeField, type MetricMeta, type StoredKind } from './store-fields.js';

/**
 * What one export writes: groups of fields, each group one point, written whole or (when its hash
 * is full and the point's series is new there) not at all. `add` adds to the totals and to the
 * minute; `minute` sets in the minute alone (a gauge's last value); `meta` sets in the totals
 * alone (a metric's description).
 */
export interface WriteGroup {
  readonly mode: 'add' | 'minute' | 'meta';
  readonly fields: readonly (readonly [field: string, value: string])[];
}

/** What a metric is, for the store: null for what it does not keep (an exponential histogram, a cumulative sum it cannot add up). */
export function storedKindOf(metric: MetricData): StoredKind | null {
  switch (metric.dataPointType) {
    case DataPointType.SUM:
      // A cumulative sum added to the totals each export would count everything again.
      if (metric.aggregationTemporality !== AggregationTemporality.DELTA) return null;
      return metric.isMonotonic ? 'counter' : 'updown';
    case DataPointType.HISTOGRAM:
      return metric.aggregationTemporality === AggregationTemporality.DELTA ? 'histogram' : null;
    case DataPointType.GAUGE:
      return 'gauge';
    case DataPointType.EXPONENTIAL_HISTOGRAM:
      return null;
  }
}

const number = (value: number): string => String(value);

/** The groups of one metric's points: the zero points (a delta export's series that saw nothing) left out. */
function metricGroups(metric: MetricData, kind: StoredKind): WriteGroup[] {
  const { name } = metric.descriptor;
  const groups: WriteGroup[] = [];
  switch (metric.dataPointType) {
    case DataPointType.SUM:
    case DataPointType.GAUGE:
      for (const point of metric.dataPoints) {
        if (!Number.isFinite(point.value) || (kind !== 'gauge' && point.value === 0)) continue;
        const field = storeField(kind, name, canonicalAttributes(point.attributes), { part: 'value' });
        groups.push({ mode: kind === 'gauge' ? 'minute' : 'add', fields: [[field, number(point.value)]] });
      }
      return groups;
    case DataPointType.HISTOGRAM:
      for (const point of metric.dataPoints) {
        const { count, sum, buckets } = point.value;
        if (count === 0) continue;
        const key = canonicalAttributes(point.attributes);
        const fields: [string, string][] = [[storeField(kind, name, key, { part: 'count' }), number(count)]];
        if (sum !== undefined && Number.isFinite(sum)) fields.push([storeField(kind, name, key, { part: 'sum' }), number(sum)]);
        buckets.counts.forEach((inBucket, index) => {
          // Every bound is written once its series is, so a reader sees the histogram's boundaries.
          const le = buckets.boundaries[index] ?? Infinity;
          fields.push([storeField(kind, name, key, { part: 'bucket', le }), number(inBucket)]);
        });
        groups.push({ mode: 'add', fields });
      }
      return groups;
    case DataPointType.EXPONENTIAL_HISTOGRAM:
      return groups;
  }
}

/**
 * The groups an export writes: for each metric the store keeps, its description and its points.
 * Pure.
 */
export function writeGroups(resourceMetrics: ResourceMetrics): WriteGroup[] {
  const groups: WriteGroup[] = [];
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      const kind = storedKindOf(metric);
      if (kind === null) continue;
      const points = metricGroups(metric, kind);
      if (points.length === 0) continue;
      const meta: MetricMeta = { kind, unit: metric.descriptor.unit, description: metric.descriptor.description };
      if (kind !== 'gauge') groups.push({ mode: 'meta', fields: [[metaField(metric.descriptor.name), JSON.stringify(meta)]] });
      groups.push(...points);
    }
  }
  return groups;
}

/** The gauges `tierflow serve` samples into the store: a name, its attributes and value. */
export interface GaugeSample {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The groups of gauge samples: each its minute's last value. Pure. */
export function gaugeGroups(samples: readonly GaugeSample[]): WriteGroup[] {
  return samples
    .filter((sample) => Number.isFinite(sample.value))
    .map((sample) => ({ mode: 'minute', fields: [[storeField('gauge', sample.name, canonicalAttributes(sample.attributes), { part: 'value' }), number(sample.value)]] }));
}

const MODE_CODES = { add: 'a', minute: 'g', meta: 'd' } as const satisfies Record<WriteGroup['mode'], string>;

/** The groups as the write script's arguments after its first three: mode, field count, then field, value pairs. Pure. */
export function groupArgs(groups: readonly WriteGroup[]): string[] {
  const args: string[] = [];
  for (const group of groups) {
    args.push(MODE_CODES[group.mode], String(group.fields.length));
    for (const [field, value] of group.fields) args.push(field, value);
  }
  return args;
}
