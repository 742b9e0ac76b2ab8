import type { HistoryReport } from '@tierflow/runtime/admin';
import { describe, expect, it } from 'vitest';
import { renderStats } from './render-stats.js';

type Stats = HistoryReport['task_types'][number]['specialists'][number]['stats'];

/** A specialist's figures: `samples` outcomes, a share of them successes, reported at `reported` in one bin. */
function stats(samples: number, successRate: number | null, overrides: Partial<Stats> = {}): Stats {
  const reported = 0.9;
  return {
    samples,
    by_status: successRate === null ? {} : { success: samples * successRate, failed: samples * (1 - successRate) },
    success_rate: successRate,
    calibration: {
      bins: successRate === null ? [] : [{ from: 0.8, to: 0.9, samples, mean_reported: reported, success_rate: successRate }],
      ece: successRate === null ? null : Math.abs(reported - successRate),
    },
    latency_ms: { p50: 1_200, p95: 3_400, p99: 5_000, mean: 1_500 },
    mean_tokens_in: 1_000,
    mean_tokens_out: 204,
    mean_cost_usd: 0.0021,
    surprises: 0,
    ...overrides,
  };
}

const EMPTY: HistoryReport = { generated_at: '2026-05-01T12:00:00.000Z', half_life_ms: null, routing: null, task_types: [], bottlenecks: [] };

const REPORT: HistoryReport = {
  generated_at: '2026-05-01T12:00:00.000Z',
  half_life_ms: 86_400_000,
  routing: { routed: 60, first_choice_success_rate: 0.8, shadow: null },
  task_types: [
    {
      task_type: 'code_generation',
      routing: { routed: 42.4, first_choice_success_rate: 0.85, shadow: { decisions: 40, differs: 12, mean_expected_gain: 0.04 } },
      specialists: [
        { specialist: 'careful-coder', stats: stats(30.2, 0.95), models: [] },
        {
          specialist: 'quick-coder',
          stats: stats(12.2, 0.5, { surprises: 2.5 }),
          models: [{ model: 'tiny-model', stats: stats(3.46, 0.5, { mean_cost_usd: 0.0004 }) }],
        },
      ],
    },
    {
      task_type: 'summarise',
      routing: null,
      specialists: [{ specialist: 'summariser', stats: stats(2, null, { latency_ms: null, mean_tokens_in: null, mean_tokens_out: null, mean_cost_usd: null }), models: [] }],
    },
  ],
  bottlenecks: [
    { task_type: 'code_generation', specialist: 'careful-coder', reason: 'slow', samples: 30.2, success_rate: 0.95, p95_latency_ms: 3_400 },
    { task_type: 'code_generation', specialist: 'quick-coder', reason: 'unreliable', samples: 12.2, success_rate: 0.5, p95_latency_ms: 3_400 },
  ],
};

describe('renderStats', () => {
  it('says in a line that there is no history yet, or none of the task type asked', () => {
    expect(renderStats(EMPTY)).toBe('no history yet: the Monitor learns from each run that finishes (tierflow runs lists them)\n');
    expect(renderStats(EMPTY, { taskType: 'haiku' })).toBe('no history of task type haiku yet\n');
  });

  it('prints a table per task type, a specialist a line and its models below it, then routing and bottlenecks', () => {
    expect(renderStats(REPORT)).toBe(
      [
        'history of 2 task types (counts decayed, half-life 24 h)',
        'routing over all task types: 60 routed, the first choice succeeded in 80%',
        '',
        'task type code_generation',
        '  SPECIALIST     MODEL       SAMPLES  SUCCESS  CALIBRATION              P50    P95    TOKENS  COST     SURPRISES',
        '  careful-coder              30       95%      ECE 0.05 calibrated      1.2 s  3.4 s  1,204   $0.0021  -',
        '  quick-coder                12       50%      ECE 0.40 over-confident  1.2 s  3.4 s  1,204   $0.0021  2.5',
        '                 tiny-model  3.5      50%      ECE 0.40 over-confident  1.2 s  3.4 s  1,204   $0.0004  -',
        '  routing: 42 routed, the first choice succeeded in 85%; shadow: learned routing would have chosen otherwise in 12 of 40, expected gain +0.04',
        '',
        'task type summarise',
        '  SPECIALIST  MODEL  SAMPLES  SUCCESS  CALIBRATION  P50  P95  TOKENS  COST  SURPRISES',
        '  summariser         2        -        -            -    -    -       -     -',
        '',
        'bottlenecks',
        '  slow        code_generation / careful-coder: p95 3.4 s over 30 samples',
        '  unreliable  code_generation / quick-coder: success 50% over 12 samples',
        '',
      ].join('\n'),
    );
  });

  it('calls a specialist that reports less than it delivers under-confident', () => {
    const modest: HistoryReport = {
      ...EMPTY,
      task_types: [
        {
          task_type: 't',
          routing: null,
          specialists: [
            { specialist: 'modest', stats: stats(20, 0.9, { calibration: { bins: [{ from: 0.5, to: 0.6, samples: 20, mean_reported: 0.55, success_rate: 0.9 }], ece: 0.35 } }), models: [] },
          ],
        },
      ],
    };
    expect(renderStats(modest)).toContain('ECE 0.35 under-confident');
  });
});
