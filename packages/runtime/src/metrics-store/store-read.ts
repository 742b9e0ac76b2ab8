import { DROPPED_FIELD, decodeField, metricMetaSchema, storedNumberSchema, type MetricMeta, type StoredAttributes, type StoredKind } from './store-fields.js';

/** A series' figures, summed over the hashes read: a counter's or gauge's value, a histogram's count, sum and buckets. */
export interface StoredSeries {
  readonly kind: StoredKind;
  readonly name: string;
  readonly attributes: StoredAttributes;
  /** A sum's or a gauge's value (gauges from different hashes add up: each hash is another cell or writer). */
  value: number;
  count: number;
  sum: number;
  /** A histogram's count in each bucket, by the bucket's upper bound (Infinity the last). */
  readonly buckets: Map<number, number>;
}

/** What hashes of the store hold, taken together. */
export interface StoredMetrics {
  /** By `<name>|<canonical attributes>`. */
  readonly series: Map<string, StoredSeries>;
  /** Metrics' descriptions, by name. */
  readonly meta: Map<string, MetricMeta>;
  /** Points the hashes turned away, full. */
  dropped: number;
}

export function emptyMetrics(): StoredMetrics {
  return { series: new Map(), meta: new Map(), dropped: 0 };
}

/**
 * Adds a hash's fields (as HGETALL gives them) to `into`, those of the metrics `names` lists when
 * it is given. Leniently: a field or value that does not
 * decode is left out, so nothing another version or a person wrote stops a reader. Pure but for `into`.
 */
export function addHash(into: StoredMetrics, hash: Readonly<Record<string, string>>, names?: ReadonlySet<string>): StoredMetrics {
  for (const [field, text] of Object.entries(hash)) {
    // Only the metrics asked for: a field's name is between its first two `|`, read before any decoding.
    if (names && field !== DROPPED_FIELD && !names.has(field.slice(field.indexOf('|') + 1, field.indexOf('|', field.indexOf('|') + 1)))) continue;
    if (field === DROPPED_FIELD) {
      const dropped = storedNumberSchema.safeParse(text);
      if (dropped.success) into.dropped += dropped.data;
      continue;
    }
    if (field.startsWith('m|')) {
      addMeta(into, field.slice(2), text);
      continue;
    }
    const decoded = decodeField(field);
    const value = storedNumberSchema.safeParse(text);
    if (decoded === null || !value.success) continue;
    const id = `${decoded.name}|${decoded.attributesKey}`;
    let series = into.series.get(id);
    if (!series) {
      series = { kind: decoded.kind, name: decoded.name, attributes: decoded.attributes, value: 0, count: 0, sum: 0, buckets: new Map() };
      into.series.set(id, series);
    }
    // One name, two kinds (an instrument changed between versions): the first one read stands.
    if (series.kind !== decoded.kind) continue;
    const { part } = decoded;
    switch (part.part) {
      case 'value':
        series.value += value.data;
        break;
      case 'count':
        series.count += value.data;
        break;
      case 'sum':
        series.sum += value.data;
        break;
      case 'bucket':
        series.buckets.set(part.le, (series.buckets.get(part.le) ?? 0) + value.data);
        break;
    }
  }
  return into;
}

function addMeta(into: StoredMetrics, name: string, text: string): void {
  if (into.meta.has(name)) return;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return;
  }
  const meta = metricMetaSchema.safeParse(json);
  if (meta.success) into.meta.set(name, meta.data);
}

/** The series of one metric, in a stable order (by their attributes). Pure. */
export function seriesOf(metrics: StoredMetrics, name: string): StoredSeries[] {
  return [...metrics.series.entries()]
    .filter(([, series]) => series.name === name)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, series]) => series);
}

/** A histogram's buckets as Prometheus has them: cumulative counts by upper bound, ascending, the last +Inf. Pure. */
export function cumulativeBuckets(series: Pick<StoredSeries, 'buckets'>): { le: number; count: number }[] {
  const bounds = [...series.buckets.keys()].sort((a, b) => a - b);
  if (bounds.at(-1) !== Infinity) bounds.push(Infinity);
  let running = 0;
  return bounds.map((le) => {
    running += series.buckets.get(le) ?? 0;
    return { le, count: running };
  });
}
