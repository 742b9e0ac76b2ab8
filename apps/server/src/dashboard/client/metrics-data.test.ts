import { describe, expect, it } from 'vitest';
import { align, joinAligned, windowOf } from './metrics-data.js';

describe('windowOf', () => {
  it.each([
    ['', '1h'],
    ['?window=6h', '6h'],
    ['?window=24h&x=1', '24h'],
    ['?window=7d', '1h'],
  ])('%s → %s', (search, expected) => {
    expect(windowOf(search)).toBe(expected);
  });
});

describe('align', () => {
  const range = { fromIso: '2030-01-01T00:00:00.000Z', toIso: '2030-01-01T00:03:00.000Z', stepMs: 60_000 };
  const t0 = Date.parse(range.fromIso) / 1000;
  const points = [
    { t: '2030-01-01T00:00:00.000Z', status: 'success', value: 2 },
    { t: '2030-01-01T00:02:00.000Z', status: 'success', value: 1 },
    { t: '2030-01-01T00:02:00.000Z', status: 'failed', value: 4 },
    { t: '2030-01-01T05:00:00.000Z', status: 'late', value: 9 },
  ];

  it('puts each label on the window’s steps, counts missing as 0, sorted by label, points outside left out', () => {
    expect(
      align(
        points,
        (p) => p.status,
        (p) => p.value,
        range,
        0,
      ),
    ).toEqual({
      times: [t0, t0 + 60, t0 + 120],
      series: [
        { label: 'failed', values: [0, 0, 4] },
        { label: 'success', values: [2, 0, 1] },
      ],
    });
  });

  it('leaves gaps where a gauge had no sample, and joins sets over the same times', () => {
    const depth = align(
      [{ t: '2030-01-01T00:01:00.000Z', tier: 'fleet', value: 3 }],
      (p) => p.tier,
      (p) => p.value,
      range,
      null,
    );
    expect(depth.series).toEqual([{ label: 'fleet', values: [null, 3, null] }]);
    expect(joinAligned(depth, { times: depth.times, series: [{ label: 'x', values: [1, 2, 3] }] }).series.map((s) => s.label)).toEqual(['fleet', 'x']);
  });

  it('steps by the hour from the hour the window starts in', () => {
    const hours = align(
      [{ t: '2030-01-01T01:00:00.000Z', v: 5 }],
      () => 'm',
      (p) => p.v,
      { fromIso: '2030-01-01T00:30:00.000Z', toIso: '2030-01-01T01:30:00.000Z', stepMs: 3_600_000 },
      0,
    );
    expect(hours.times).toEqual([t0, t0 + 3600]);
    expect(hours.series).toEqual([{ label: 'm', values: [0, 5] }]);
  });
});
