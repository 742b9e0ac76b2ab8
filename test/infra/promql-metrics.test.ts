import { describe, expect, it } from 'vitest';
import { promqlMetricNames } from '../support/promql-metrics.js';

describe('promqlMetricNames', () => {
  it.each([
    ['up', ['up']],
    ['tierflow_queue_depth{job="$job", tierflow_tier=~"fleet|dispatcher"}', ['tierflow_queue_depth']],
    ['sum by (tierflow_status) (rate(tierflow_runs_finished_total{job="$job"}[$__rate_interval])) * 60', ['tierflow_runs_finished_total']],
    ['histogram_quantile(0.95, sum by (le, tierflow_tier) (rate(tierflow_hop_duration_bucket[5m])))', ['tierflow_hop_duration_bucket']],
    ['sum(rate(a_total[1m])) by (x) / on (x) group_left (y) sum without (z) (b_count offset 5m)', ['a_total', 'b_count']],
    ['a or b unless c and d > bool 1e3', ['a', 'b', 'c', 'd']],
    ['count_values("a_string_is_no_metric", x) + label_replace(y, "dst", "$1", "src", "(.*)")', ['x', 'y']],
    ['{__name__="by_matcher", job="j"}', ['by_matcher']],
    ['max_over_time(deriv(z[${__range}])[1h:1m]) + Inf - NaN', ['z']],
    ['rate(m[$__rate_interval]) * ${factor}', ['m']],
    ['sum(x) + sum(x)', ['x']],
  ])('%s names %j', (expr, names) => {
    expect(promqlMetricNames(expr)).toEqual(names);
  });
});
