import { AggregationTemporality, DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { gaugeGroups, groupArgs, writeGroups } from './store-write.js';

const time: [number, number] = [0, 0];
const descriptor = (name: string, type: string) => ({ name, description: `${name} described`, unit: 's', type, valueType: 1, advice: {} }) as unknown as MetricData['descriptor'];

function sum(name: string, points: [Record<string, string>, number][], options: { monotonic?: boolean; temporality?: AggregationTemporality } = {}): MetricData {
  return {
    descriptor: descriptor(name, 'COUNTER'),
    dataPointType: DataPointType.SUM,
    aggregationTemporality: options.temporality ?? AggregationTemporality.DELTA,
    isMonotonic: options.monotonic ?? true,
    dataPoints: points.map(([attributes, value]) => ({ attributes, value, startTime: time, endTime: time })),
  };
}

function histogram(name: string, attributes: Record<string, string>, boundaries: number[], counts: number[], total: number): MetricData {
  return {
    descriptor: descriptor(name, 'HISTOGRAM'),
    dataPointType: DataPointType.HISTOGRAM,
    aggregationTemporality: AggregationTemporality.DELTA,
    dataPoints: [{ attributes, startTime: time, endTime: time, value: { buckets: { boundaries, counts }, count: counts.reduce((a, b) => a + b, 0), sum: total } }],
  };
}

function gauge(name: string, value: number): MetricData {
  return {
    descriptor: descriptor(name, 'OBSERVABLE_GAUGE'),
    dataPointType: DataPointType.GAUGE,
    aggregationTemporality: AggregationTemporality.DELTA,
    dataPoints: [{ attributes: {}, value, startTime: time, endTime: time }],
  };
}

const exported = (...metrics: MetricData[]): ResourceMetrics => ({ resource: {} as ResourceMetrics['resource'], scopeMetrics: [{ scope: { name: '@tierflow/runtime' }, metrics }] });

describe('writeGroups', () => {
  it('adds a counter’s points, with the metric described once, and leaves zero deltas out', () => {
    expect(
      writeGroups(
        exported(
          sum('runs', [
            [{ status: 'success' }, 3],
            [{ status: 'failed' }, 0],
          ]),
        ),
      ),
    ).toEqual([
      { mode: 'meta', fields: [['m|runs', '{"kind":"counter","unit":"s","description":"runs described"}']] },
      { mode: 'add', fields: [['c|runs|v|[["status","success"]]', '3']] },
    ]);
  });

  it('adds an up-down counter’s deltas, negative ones too', () => {
    expect(writeGroups(exported(sum('open', [[{}, -2]], { monotonic: false })))[1]).toEqual({ mode: 'add', fields: [['u|open|v|[]', '-2']] });
  });

  it('adds a histogram’s count, sum and every bucket as one group, the last bucket +Inf', () => {
    expect(writeGroups(exported(histogram('hop', { tier: 'fleet' }, [0.1, 1], [1, 0, 2], 7.5)))[1]).toEqual({
      mode: 'add',
      fields: [
        ['h|hop|n|[["tier","fleet"]]', '3'],
        ['h|hop|s|[["tier","fleet"]]', '7.5'],
        ['h|hop|b0.1|[["tier","fleet"]]', '1'],
        ['h|hop|b1|[["tier","fleet"]]', '0'],
        ['h|hop|binf|[["tier","fleet"]]', '2'],
      ],
    });
  });

  it('sets a gauge’s last value in the minute alone, undescribed', () => {
    expect(writeGroups(exported(gauge('running', 4)))).toEqual([{ mode: 'minute', fields: [['g|running|v|[]', '4']] }]);
  });

  it('keeps nothing it could not add up: cumulative sums and histograms, empty histograms, values that are no numbers', () => {
    const cumulative = sum('c', [[{}, 5]], { temporality: AggregationTemporality.CUMULATIVE });
    const empty = histogram('h', {}, [1], [0, 0], 0);
    expect(writeGroups(exported(cumulative, empty, sum('nan', [[{}, Number.NaN]]), gauge('inf', Infinity)))).toEqual([]);
  });
});

describe('gaugeGroups and groupArgs', () => {
  it('writes samples as minute values and groups as the script’s arguments', () => {
    const groups = gaugeGroups([
      { name: 'tierflow.queue.depth', attributes: { 'tierflow.tier': 'fleet' }, value: 3 },
      { name: 'x', attributes: {}, value: Number.NaN },
    ]);
    expect(groupArgs(groups)).toEqual(['g', '1', 'g|tierflow.queue.depth|v|[["tierflow.tier","fleet"]]', '3']);
    expect(
      groupArgs([
        {
          mode: 'add',
          fields: [
            ['a', '1'],
            ['b', '2'],
          ],
        },
        { mode: 'meta', fields: [['m|a', '{}']] },
      ]),
    ).toEqual(['a', '2', 'a', '1', 'b', '2', 'd', '1', 'm|a', '{}']);
  });
});
