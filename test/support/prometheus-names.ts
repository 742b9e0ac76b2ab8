/**
 * The metrics Tierflow exports (issue 41's instruments) and what Prometheus calls them.
 *
 * Both `tierflow serve`'s /metrics and the workers' own endpoints serialise with
 * @opentelemetry/exporter-prometheus's PrometheusSerializer. At 0.223.0 it replaces every character
 * outside [a-zA-Z0-9_] by `_` (dots included) in metric and label names, adds `_total` to monotonic
 * sums (counters) only, and adds NO unit suffix: a histogram in seconds stays `..._duration`, not
 * `..._duration_seconds`, and `{token}` or `USD` leave no trace in the name. A histogram becomes
 * three series, `_bucket` (with `le`), `_sum` and `_count`. Every series also carries
 * `otel_scope_name` (and `otel_scope_version` when the meter has one). prometheus-names.test.ts
 * checks this table against the serializer itself.
 */

export type InstrumentKind = 'counter' | 'histogram' | 'gauge';

/** One instrument as the workers or `tierflow serve` make it (OTel names). */
export interface TierflowInstrument {
  readonly name: string;
  readonly kind: InstrumentKind;
  readonly unit: string;
  readonly attributes: readonly string[];
  /** Who records it: a worker process, or `tierflow serve` from Redis at scrape time. */
  readonly source: 'worker' | 'serve';
  /** Only with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental (in place of the token histogram). */
  readonly latestExperimental?: boolean;
}

const MODEL_CALL = ['gen_ai.operation.name', 'gen_ai.provider.name', 'gen_ai.request.model', 'gen_ai.response.model', 'server.address'];

export const TIERFLOW_INSTRUMENTS: readonly TierflowInstrument[] = [
  { name: 'gen_ai.client.token.usage', kind: 'histogram', unit: '{token}', attributes: [...MODEL_CALL, 'gen_ai.token.type'], source: 'worker' },
  {
    name: 'gen_ai.client.inference.tokens',
    kind: 'counter',
    unit: '{token}',
    attributes: [...MODEL_CALL, 'gen_ai.token.type', 'gen_ai.token.modality'],
    source: 'worker',
    latestExperimental: true,
  },
  { name: 'gen_ai.client.operation.duration', kind: 'histogram', unit: 's', attributes: [...MODEL_CALL, 'error.type'], source: 'worker' },
  { name: 'tierflow.model.cost', kind: 'counter', unit: 'USD', attributes: ['gen_ai.provider.name', 'gen_ai.request.model'], source: 'worker' },
  { name: 'tierflow.runs.finished', kind: 'counter', unit: '{run}', attributes: ['tierflow.status'], source: 'worker' },
  { name: 'tierflow.run.duration', kind: 'histogram', unit: 's', attributes: ['tierflow.status'], source: 'worker' },
  { name: 'tierflow.hop.duration', kind: 'histogram', unit: 's', attributes: ['tierflow.tier', 'tierflow.status', 'error.type'], source: 'worker' },
  { name: 'tierflow.hop.queued', kind: 'histogram', unit: 's', attributes: ['tierflow.tier'], source: 'worker' },
  { name: 'tierflow.retries', kind: 'counter', unit: '', attributes: ['tierflow.tier'], source: 'worker' },
  { name: 'tierflow.escalations', kind: 'counter', unit: '', attributes: ['tierflow.tier'], source: 'worker' },
  { name: 'tierflow.revisions', kind: 'counter', unit: '', attributes: [], source: 'worker' },
  { name: 'tierflow.questions', kind: 'counter', unit: '', attributes: ['tierflow.tier'], source: 'worker' },
  { name: 'tierflow.question.wait', kind: 'histogram', unit: 's', attributes: [], source: 'worker' },
  { name: 'tierflow.budget.stops', kind: 'counter', unit: '', attributes: ['tierflow.budget'], source: 'worker' },
  { name: 'tierflow.dead_letters', kind: 'counter', unit: '', attributes: ['tierflow.tier', 'error.type'], source: 'worker' },
  { name: 'tierflow.security.findings', kind: 'counter', unit: '', attributes: ['tierflow.tier', 'error.type'], source: 'worker' },
  { name: 'tierflow.worker.jobs.running', kind: 'gauge', unit: '', attributes: ['tierflow.tier', 'service.instance.id'], source: 'serve' },
  { name: 'tierflow.queue.depth', kind: 'gauge', unit: '', attributes: ['tierflow.tier', 'tierflow.queue.state'], source: 'serve' },
  { name: 'tierflow.workers.alive', kind: 'gauge', unit: '', attributes: ['tierflow.tier'], source: 'serve' },
  { name: 'tierflow.metrics.dropped', kind: 'gauge', unit: '', attributes: [], source: 'serve' },
];

/** PrometheusSerializer's name for an OTel metric or attribute name (0.223.0's sanitising). */
export function prometheusName(otelName: string): string {
  return otelName.replace(/[^a-z0-9_]/gi, '_').replace(/_{2,}/g, '_');
}

/** A series as PromQL names it, and the label names it carries (besides otel_scope_*). */
export interface PrometheusSeries {
  readonly metric: string;
  readonly labels: readonly string[];
  readonly instrument: TierflowInstrument;
}

/** The series one instrument becomes. */
export function seriesOf(instrument: TierflowInstrument): PrometheusSeries[] {
  const base = prometheusName(instrument.name);
  const labels = instrument.attributes.map(prometheusName);
  switch (instrument.kind) {
    case 'counter':
      return [{ metric: base.endsWith('_total') ? base : `${base}_total`, labels, instrument }];
    case 'gauge':
      return [{ metric: base, labels, instrument }];
    case 'histogram':
      return [
        { metric: `${base}_bucket`, labels: [...labels, 'le'], instrument },
        { metric: `${base}_sum`, labels, instrument },
        { metric: `${base}_count`, labels, instrument },
      ];
  }
}

/** Every series Tierflow exports, by PromQL name. */
export const PROMETHEUS_SERIES: ReadonlyMap<string, PrometheusSeries> = new Map(TIERFLOW_INSTRUMENTS.flatMap(seriesOf).map((series) => [series.metric, series]));

/** The PromQL metric names, sorted: what a dashboard's queries may name. */
export const PROMETHEUS_METRIC_NAMES: readonly string[] = [...PROMETHEUS_SERIES.keys()].sort();
