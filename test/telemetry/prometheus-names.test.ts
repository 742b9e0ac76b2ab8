import { describe, expect, it } from 'vitest';
import { exposedSamples, exposeInstruments } from '../support/prometheus-exposition.js';
import { PROMETHEUS_METRIC_NAMES, PROMETHEUS_SERIES, prometheusName, seriesOf, TIERFLOW_INSTRUMENTS } from '../support/prometheus-names.js';

const SCOPE_LABELS = ['otel_scope_name', 'otel_scope_version', 'otel_scope_schema_url'];

describe('the Prometheus names of Tierflow’s metrics', () => {
  it('are what PrometheusSerializer makes of the instruments, series by series and label by label', async () => {
    const samples = exposedSamples(await exposeInstruments(TIERFLOW_INSTRUMENTS, 1));
    expect([...new Set(samples.map((sample) => sample.metric))].sort()).toEqual(PROMETHEUS_METRIC_NAMES);
    for (const sample of samples) {
      const labels = sample.labels.filter((label) => !SCOPE_LABELS.includes(label));
      expect({ metric: sample.metric, labels: [...labels].sort() }).toEqual({ metric: sample.metric, labels: [...PROMETHEUS_SERIES.get(sample.metric)!.labels].sort() });
    }
  });

  it.each([
    ['tierflow.runs.finished', ['tierflow_runs_finished_total']],
    ['tierflow.run.duration', ['tierflow_run_duration_bucket', 'tierflow_run_duration_sum', 'tierflow_run_duration_count']],
    ['tierflow.model.cost', ['tierflow_model_cost_total']],
    ['gen_ai.client.token.usage', ['gen_ai_client_token_usage_bucket', 'gen_ai_client_token_usage_sum', 'gen_ai_client_token_usage_count']],
    ['gen_ai.client.inference.tokens', ['gen_ai_client_inference_tokens_total']],
    ['tierflow.dead_letters', ['tierflow_dead_letters_total']],
    ['tierflow.queue.depth', ['tierflow_queue_depth']],
  ])('%s: no unit suffix (s, {token}, USD), _total on counters only', (name, metrics) => {
    const instrument = TIERFLOW_INSTRUMENTS.find((candidate) => candidate.name === name)!;
    expect(seriesOf(instrument).map((series) => series.metric)).toEqual(metrics);
  });

  it('turns attribute names into label names with underscores', () => {
    expect(prometheusName('gen_ai.request.model')).toBe('gen_ai_request_model');
    expect(prometheusName('service.instance.id')).toBe('service_instance_id');
    expect(prometheusName('tierflow.queue.state')).toBe('tierflow_queue_state');
  });
});
