import { beforeAll, describe, expect, it } from 'vitest';
import { addHash, emptyMetrics } from '@tierflow/runtime/admin';
import { deploymentResourceMetrics, prometheusText } from './exposition.js';

// The store's totals and serve's gauges through the OTel Prometheus serializer: the names and
// shapes a worker's own Prometheus endpoint gives the same instruments.

const totals = addHash(emptyMetrics(), {
  'm|tierflow.runs.finished': '{"kind":"counter","unit":"{run}","description":"Runs finished"}',
  'c|tierflow.runs.finished|v|[["tierflow.status","success"]]': '5',
  'c|tierflow.runs.finished|v|[["tierflow.status","failed"]]': '1',
  'm|tierflow.hop.duration': '{"kind":"histogram","unit":"s","description":"A tier’s pass"}',
  'h|tierflow.hop.duration|n|[["tierflow.tier","fleet"]]': '3',
  'h|tierflow.hop.duration|s|[["tierflow.tier","fleet"]]': '2.5',
  'h|tierflow.hop.duration|b0.5|[["tierflow.tier","fleet"]]': '1',
  'h|tierflow.hop.duration|b1|[["tierflow.tier","fleet"]]': '1',
  'h|tierflow.hop.duration|binf|[["tierflow.tier","fleet"]]': '1',
  'u|tierflow.open|v|[]': '-2',
});
const depth = {
  name: 'tierflow.queue.depth',
  description: 'Jobs',
  unit: '{job}',
  samples: [{ name: 'tierflow.queue.depth', attributes: { 'tierflow.tier': 'fleet', 'tierflow.queue.state': 'waiting' }, value: 4 }],
};

describe('prometheusText', () => {
  let text = '';
  beforeAll(async () => {
    text = await prometheusText(deploymentResourceMetrics(totals, [depth], Date.UTC(2030, 0, 1)));
  });

  it('writes counters as counters, with _total', () => {
    expect(text).toContain('# HELP tierflow_runs_finished_total Runs finished');
    expect(text).toContain('# TYPE tierflow_runs_finished_total counter');
    expect(text).toContain('tierflow_runs_finished_total{tierflow_status="success",otel_scope_name="@tierflow/runtime"} 5');
    expect(text).toContain('tierflow_runs_finished_total{tierflow_status="failed",otel_scope_name="@tierflow/runtime"} 1');
  });

  it('writes histograms with the bounds they were recorded with, cumulative', () => {
    expect(text).toContain('# TYPE tierflow_hop_duration histogram');
    expect(text).toContain('tierflow_hop_duration_count{tierflow_tier="fleet",otel_scope_name="@tierflow/runtime"} 3');
    expect(text).toContain('tierflow_hop_duration_sum{tierflow_tier="fleet",otel_scope_name="@tierflow/runtime"} 2.5');
    expect(text).toContain('tierflow_hop_duration_bucket{tierflow_tier="fleet",otel_scope_name="@tierflow/runtime",le="0.5"} 1');
    expect(text).toContain('tierflow_hop_duration_bucket{tierflow_tier="fleet",otel_scope_name="@tierflow/runtime",le="1"} 2');
    expect(text).toContain('tierflow_hop_duration_bucket{tierflow_tier="fleet",otel_scope_name="@tierflow/runtime",le="+Inf"} 3');
  });

  it('writes up-down counters and the gauges computed at scrape as gauges, and the target', () => {
    expect(text).toContain('# TYPE tierflow_open gauge');
    expect(text).toContain('tierflow_open{otel_scope_name="@tierflow/runtime"} -2');
    expect(text).toContain('tierflow_queue_depth{tierflow_tier="fleet",tierflow_queue_state="waiting",otel_scope_name="@tierflow/runtime"} 4');
    expect(text).toContain('target_info{service_name="tierflow-serve"} 1');
  });

  it('says there is nothing when there is nothing', async () => {
    expect(await prometheusText(deploymentResourceMetrics(emptyMetrics(), [], 0))).toContain('# no registered metrics');
  });
});
