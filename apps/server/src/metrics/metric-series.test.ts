import { addHash, emptyMetrics, type StoredMinute } from '@tierflow/runtime/admin';
import { describe, expect, it } from 'vitest';
import { metricSeries } from './metric-series.js';
import { metricsSchema } from './metrics-schemas.js';

const MINUTE = 29_000_040; // on an hour's start
const at = (minute: number) => new Date(minute * 60_000).toISOString();
const minute = (offset: number, hash: Record<string, string>): StoredMinute => ({ minute: MINUTE + offset, metrics: addHash(emptyMetrics(), hash) });
const hop = (attributes: string, buckets: Record<string, number>): Record<string, string> => {
  const count = Object.values(buckets).reduce((a, b) => a + b, 0);
  const fields: [string, string][] = [
    [`h|tierflow.hop.duration|n|${attributes}`, String(count)],
    [`h|tierflow.hop.duration|s|${attributes}`, '1'],
    ...Object.entries(buckets).map(([le, inBucket]): [string, string] => [`h|tierflow.hop.duration|b${le}|${attributes}`, String(inBucket)]),
  ];
  return Object.fromEntries(fields);
};

describe('metricSeries', () => {
  const minutes = [
    minute(0, {
      'c|tierflow.runs.finished|v|[["tierflow.status","success"]]': '3',
      'c|tierflow.runs.finished|v|[["tierflow.status","failed"]]': '1',
      ...hop('[["tierflow.status","success"],["tierflow.tier","fleet"]]', { '1': 8, '2': 0, inf: 0 }),
      ...hop('[["error.type","timeout"],["tierflow.status","failed"],["tierflow.tier","fleet"]]', { '1': 0, '2': 2, inf: 0 }),
      'g|tierflow.queue.depth|v|[["tierflow.queue.state","waiting"],["tierflow.tier","fleet"]]': '4',
      'g|tierflow.queue.depth|v|[["tierflow.queue.state","prioritized"],["tierflow.tier","fleet"]]': '2',
      'g|tierflow.queue.depth|v|[["tierflow.queue.state","active"],["tierflow.tier","fleet"]]': '9',
      'h|gen_ai.client.token.usage|n|[["gen_ai.request.model","gpt-x"],["gen_ai.token.type","input"]]': '2',
      'h|gen_ai.client.token.usage|s|[["gen_ai.request.model","gpt-x"],["gen_ai.token.type","input"]]': '300',
      'c|tierflow.model.cost|v|[["gen_ai.provider.name","openai"],["gen_ai.request.model","gpt-x"]]': '0.25',
      'c|tierflow.dead_letters|v|[["error.type","timeout"],["tierflow.tier","fleet"]]': '1',
      '!dropped': '2',
    }),
    minute(1, {}),
    minute(2, {
      'c|gen_ai.client.inference.tokens|v|[["gen_ai.request.model","gpt-x"],["gen_ai.token.type","input"]]': '50',
      'c|tierflow.model.cost|v|[["gen_ai.request.model","gpt-x"]]': '0.5',
    }),
  ];
  const answer = metricSeries('1h', minutes);

  it('answers in the shape the schema describes, over the minutes read', () => {
    expect(metricsSchema.parse(answer)).toEqual(answer);
    expect(answer).toMatchObject({ window: '1h', step_s: 60, from: at(MINUTE), to: at(MINUTE + 3), dropped: 2 });
  });

  it('counts runs by status in each minute', () => {
    expect(answer.series.runs_per_minute).toEqual([
      { t: at(MINUTE), status: 'failed', value: 1 },
      { t: at(MINUTE), status: 'success', value: 3 },
    ]);
  });

  it('takes a tier’s p50 and p95 from the buckets of all its passes, failed ones included', () => {
    // 10 passes: 8 up to 1 s, 2 between 1 and 2 s.
    expect(answer.series.hop_duration).toEqual([{ t: at(MINUTE), tier: 'fleet', p50: 0.625, p95: 1.75 }]);
  });

  it('draws queue depth as the jobs no worker has taken', () => {
    expect(answer.series.queue_depth).toEqual([{ t: at(MINUTE), tier: 'fleet', value: 6 }]);
  });

  it('adds tokens and cost up by the hour and model, from both conventions’ token instruments', () => {
    expect(answer.series.tokens_per_hour).toEqual([{ t: at(MINUTE), model: 'gpt-x', type: 'input', value: 350 }]);
    expect(answer.series.cost_per_hour).toEqual([{ t: at(MINUTE), model: 'gpt-x', value: 0.75 }]);
  });

  it('counts errors by type: failed passes and dead letters', () => {
    expect(answer.series.errors).toEqual([{ t: at(MINUTE), error_type: 'timeout', value: 3 }]);
  });
});
