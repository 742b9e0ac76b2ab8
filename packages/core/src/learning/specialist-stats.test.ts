import { describe, expect, it } from 'vitest';
import { decayedSumsSchema } from './decayed-sums.js';
import { calibrationBinOf, EMPTY_SPECIALIST_STATS, historyIncrements, specialistStats } from './specialist-stats.js';
import { fold, record } from './test-records.js';

const HOUR = 3_600_000;

describe('historyIncrements', () => {
  it('adds a judged attempt to the counts, its confidence bin, its latency bucket and the means', () => {
    expect(historyIncrements(record({ status: 'failed', confidence: 0.95, latency_ms: 0, surprise: true }))).toEqual({
      'st.failed': 1,
      n: 1,
      ok: 0,
      'cal.9.n': 1,
      'cal.9.conf': 0.95,
      'cal.9.ok': 0,
      lat: 0,
      'lat.0': 1,
      tin: 10,
      tout: 20,
      cost: 0.01,
      surp: 1,
    });
  });

  it('counts a cancelled attempt under its status only', () => {
    expect(historyIncrements(record({ status: 'cancelled' }))).toEqual({ 'st.cancelled': 1 });
  });
});

describe('calibrationBinOf', () => {
  it('puts each tenth in its bin, 1 in the last', () => {
    expect([0, 0.05, 0.1, 0.3, 0.6, 0.7, 0.95, 0.999, 1].map(calibrationBinOf)).toEqual([0, 0, 1, 3, 6, 7, 9, 9, 9]);
  });
});

describe('specialistStats', () => {
  it('has no statistics without history', () => {
    expect(specialistStats(null, 0)).toBe(EMPTY_SPECIALIST_STATS);
    expect(EMPTY_SPECIALIST_STATS.calibration.bins).toHaveLength(10);
  });

  it('round-trips counts, rates, means and calibration bins', () => {
    const records = [
      ...Array.from({ length: 6 }, () => record({ status: 'success', confidence: 0.92, cost_usd: 0.02, tokens_in: 100 })),
      ...Array.from({ length: 2 }, () => record({ status: 'failed', confidence: 0.91, cost_usd: 0.02, tokens_in: 100 })),
      ...Array.from({ length: 2 }, () => record({ status: 'partial', confidence: 0.45, cost_usd: 0.02, tokens_in: 100, surprise: true })),
      record({ status: 'cancelled' }),
    ];
    const value = fold(records);
    expect(decayedSumsSchema.safeParse(value).success).toBe(true);
    const stats = specialistStats(value, 0);
    expect(stats.samples).toBe(10);
    expect(stats.by_status).toEqual({ success: 6, failed: 2, partial: 2, cancelled: 1 });
    expect(stats.success_rate).toBeCloseTo(0.6, 12);
    expect(stats.mean_cost_usd).toBeCloseTo(0.02, 12);
    expect(stats.mean_tokens_in).toBeCloseTo(100, 12);
    expect(stats.mean_tokens_out).toBeCloseTo(20, 12);
    expect(stats.surprises).toBe(2);
    const high = stats.calibration.bins[9]!;
    expect(high).toMatchObject({ from: 0.9, to: 1, samples: 8 });
    expect(high.mean_reported).toBeCloseTo((6 * 0.92 + 2 * 0.91) / 8, 12);
    expect(high.success_rate).toBeCloseTo(0.75, 12);
    expect(stats.calibration.bins[4]).toMatchObject({ samples: 2, success_rate: 0 });
    expect(stats.calibration.bins[4]!.mean_reported).toBeCloseTo(0.45, 12);
    expect(stats.calibration.bins[0]).toMatchObject({ samples: 0, mean_reported: null, success_rate: null });
    // ECE: (8 × |0.9175 − 0.75| + 2 × |0.45 − 0|) / 10
    expect(stats.calibration.ece).toBeCloseTo((8 * Math.abs((6 * 0.92 + 2 * 0.91) / 8 - 0.75) + 2 * 0.45) / 10, 12);
  });

  it('decays everything with the half-life: rates stay, counts halve', () => {
    const value = fold([record(), record(), record({ status: 'failed' }), record({ status: 'failed' })], HOUR);
    const later = specialistStats(value, HOUR);
    expect(later.samples).toBeCloseTo(2, 12);
    expect(later.by_status.success).toBeCloseTo(1, 12);
    expect(later.success_rate).toBeCloseTo(0.5, 12);
    expect(later.latency_ms?.mean).toBeCloseTo(100, 9);
  });

  it('weighs recent attempts more: a specialist that got worse shows it', () => {
    const records = [...Array.from({ length: 20 }, () => record()), ...Array.from({ length: 20 }, () => record({ status: 'failed' }))];
    const stats = specialistStats(
      fold(records, HOUR, (i) => (i < 20 ? 0 : 3 * HOUR)),
      3 * HOUR,
    );
    // 20 failures now against 20 successes three half-lives ago (weight 1/8 each).
    expect(stats.success_rate).toBeCloseTo(2.5 / 22.5, 12);
  });

  it('reads latency percentiles from the decayed log-bucket histogram within a bucket’s width', () => {
    const latencies = Array.from({ length: 1000 }, (_, i) => (i + 1) * 10); // 10 ms … 10 s, uniform
    const stats = specialistStats(
      fold(
        latencies.map((latency_ms) => record({ latency_ms })),
        HOUR,
        () => 0,
      ),
      2 * HOUR,
    );
    const latency = stats.latency_ms!;
    expect(latency.mean).toBeCloseTo(5005, 6);
    expect(latency.p50 / 5000).toBeGreaterThan(0.9);
    expect(latency.p50 / 5000).toBeLessThan(1.1);
    expect(latency.p95 / 9500).toBeGreaterThan(0.9);
    expect(latency.p95 / 9500).toBeLessThan(1.1);
    expect(latency.p99 / 9900).toBeGreaterThan(0.9);
    expect(latency.p99 / 9900).toBeLessThan(1.1);
    expect(latency.p50).toBeLessThanOrEqual(latency.p95);
    expect(latency.p95).toBeLessThanOrEqual(latency.p99);
  });

  it('lets recent latencies dominate the percentiles once old ones have decayed', () => {
    const records = [...Array.from({ length: 100 }, () => record({ latency_ms: 100 })), ...Array.from({ length: 100 }, () => record({ latency_ms: 5000 }))];
    const stats = specialistStats(
      fold(records, HOUR, (i) => (i < 100 ? 0 : 10 * HOUR)),
      10 * HOUR,
    );
    expect(stats.latency_ms!.p50).toBeGreaterThan(4000);
    expect(stats.latency_ms!.p50).toBeLessThan(6000);
  });

  it('never reports a rate above 1 or a negative count from a corrupt value', () => {
    const stats = specialistStats({ updated_at: 0, half_life_ms: HOUR, sums: { n: 2, ok: 5, 'st.success': -3, 'cal.9.n': 2, 'cal.9.ok': 9, 'cal.9.conf': 4 } }, 0);
    expect(stats.success_rate).toBe(1);
    expect(stats.by_status).toEqual({});
    expect(stats.calibration.bins[9]).toMatchObject({ success_rate: 1, mean_reported: 1 });
  });
});
