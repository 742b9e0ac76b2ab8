import { describe, expect, it } from 'vitest';
import { calibrateConfidence, DEFAULT_CALIBRATION } from './calibration.js';
import { seededRandom } from './sampling.js';
import { specialistStats } from './specialist-stats.js';
import { fold, record } from './test-records.js';

/** An over-confident specialist: reports 0.95 and succeeds half the time (seeded draws). */
function overConfident(attempts: number, seed = 11): ReturnType<typeof specialistStats> {
  const random = seededRandom(seed);
  const records = Array.from({ length: attempts }, () => record({ confidence: 0.95, status: random() < 0.5 ? 'success' : 'failed' }));
  return specialistStats(fold(records), 0);
}

describe('calibrateConfidence', () => {
  it('brings an over-confident specialist’s 0.95 down to about the half it earns', () => {
    const stats = overConfident(400);
    const result = calibrateConfidence(0.95, stats);
    expect(result.calibrated).toBe(true);
    expect(result.samples).toBe(400);
    expect(result.confidence).toBeGreaterThan(0.44);
    expect(result.confidence).toBeLessThan(0.56);
  });

  it('leaves the reported value as it is below minSamples', () => {
    const stats = overConfident(DEFAULT_CALIBRATION.minSamples - 1);
    expect(calibrateConfidence(0.95, stats)).toEqual({ confidence: 0.95, calibrated: false, samples: DEFAULT_CALIBRATION.minSamples - 1 });
  });

  it('weighs the report as priorWeight pseudo-attempts: exactly at minSamples it moves part way', () => {
    const stats = specialistStats(fold(Array.from({ length: 10 }, (_, i) => record({ confidence: 0.95, status: i < 5 ? 'success' : 'failed' }))), 0);
    expect(calibrateConfidence(0.95, stats).confidence).toBeCloseTo((5 + 5 * 0.95) / 15, 12);
    expect(calibrateConfidence(0.95, stats, { minSamples: 10, priorWeight: 0 }).confidence).toBeCloseTo(0.5, 12);
  });

  it('uses the reported value’s own bin: history at 0.95 says nothing of a report of 0.35', () => {
    const stats = overConfident(400);
    expect(calibrateConfidence(0.35, stats)).toEqual({ confidence: 0.35, calibrated: false, samples: 0 });
  });

  it('leaves a well-calibrated specialist about where it was', () => {
    const random = seededRandom(5);
    const stats = specialistStats(fold(Array.from({ length: 500 }, () => record({ confidence: 0.85, status: random() < 0.85 ? 'success' : 'failed' }))), 0);
    expect(calibrateConfidence(0.85, stats).confidence).toBeCloseTo(0.85, 1);
  });

  it('stops trusting a bin once its history has decayed below minSamples', () => {
    const records = Array.from({ length: 12 }, (_, i) => record({ confidence: 0.95, status: i % 2 === 0 ? 'success' : 'failed' }));
    const stats = specialistStats(fold(records, 1000), 1000);
    expect(calibrateConfidence(0.95, stats)).toMatchObject({ confidence: 0.95, calibrated: false, samples: 6 });
  });

  it('passes the report through without history, and refuses a value that is no confidence', () => {
    expect(calibrateConfidence(0.7, null)).toEqual({ confidence: 0.7, calibrated: false, samples: 0 });
    expect(() => calibrateConfidence(1.2, null)).toThrow(RangeError);
  });
});
