import { addToSums, historyIncrements, specialistStats, type DecayedSums } from '@tierflow/core';
import { describe, expect, it } from 'vitest';
import { BOTTLENECK_MIN_SAMPLES, BOTTLENECKS_LISTED, rankBottlenecks, type PairStats } from './bottlenecks.js';
import { learningRecord } from '../testing/learning-record.js';

const T0 = 1_700_000_000_000;

/** A pair with `samples` attempts of `latency` ms, `successes` of them successful. */
function pair(specialist: string, samples: number, successes: number, latency: number, taskType = 't'): PairStats {
  let value: DecayedSums | null = null;
  for (let i = 0; i < samples; i++)
    value = addToSums(value, historyIncrements(learningRecord({ task_type: taskType, specialist, status: i < successes ? 'success' : 'failed', latency_ms: latency })), T0, 86_400_000);
  return { task_type: taskType, specialist, stats: specialistStats(value, T0) };
}

describe('rankBottlenecks', () => {
  it('names the slowest and the least reliable pairs, each list worst first', () => {
    const ranked = rankBottlenecks([pair('fast', 10, 10, 50), pair('slow', 10, 9, 5_000), pair('flaky', 10, 3, 100), pair('meh', 10, 8, 800)]);
    expect(ranked.filter((entry) => entry.reason === 'slow').map((entry) => entry.specialist)).toEqual(['slow', 'meh', 'flaky', 'fast']);
    expect(ranked.filter((entry) => entry.reason === 'unreliable').map((entry) => entry.specialist)).toEqual(['flaky', 'meh', 'slow']);
    expect(ranked.find((entry) => entry.specialist === 'flaky' && entry.reason === 'unreliable')).toMatchObject({ task_type: 't', samples: 10, success_rate: 0.3 });
    expect(ranked.find((entry) => entry.specialist === 'slow')!.p95_latency_ms).toBeGreaterThan(4_000);
  });

  it('judges no pair before it has enough samples, and lists at most a few of each', () => {
    expect(rankBottlenecks([pair('new', BOTTLENECK_MIN_SAMPLES - 1, 0, 9_000)])).toEqual([]);
    const many = Array.from({ length: BOTTLENECKS_LISTED + 3 }, (_, i) => pair(`s${i}`, BOTTLENECK_MIN_SAMPLES, 1, 100 * (i + 1)));
    const ranked = rankBottlenecks(many);
    expect(ranked.filter((entry) => entry.reason === 'slow')).toHaveLength(BOTTLENECKS_LISTED);
    expect(ranked.filter((entry) => entry.reason === 'unreliable')).toHaveLength(BOTTLENECKS_LISTED);
  });
});
