import type { RunSummary } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import { renderRuns } from './render-runs.js';

const NOW = Date.parse('2026-11-25T12:10:00.000Z');

describe('renderRuns', () => {
  it('lists runs with status, age, duration and objective', () => {
    const runs: RunSummary[] = [
      { root_id: 'r2', status: 'running', queue_state: 'active', objective: 'a long one', submitted_at: '2026-11-25T12:09:30.000Z', finished_at: null, duration_ms: 29_000, tokens: 0, cost_usd: 0 },
      {
        root_id: 'r1',
        status: 'success',
        queue_state: 'completed',
        objective: 'binary search',
        submitted_at: '2026-11-25T12:00:00.000Z',
        finished_at: '2026-11-25T12:00:02.000Z',
        duration_ms: 1_950,
        tokens: 12_480,
        cost_usd: 0.01234,
      },
    ];
    expect(renderRuns(runs, NOW).split('\n')).toEqual([
      'ROOT  STATUS   AGE     DURATION  TOKENS  COST      OBJECTIVE',
      'r2    running  30 s    29 s      -       -         a long one',
      'r1    success  10 min  1.9 s     12,480  $0.01234  binary search',
      '',
    ]);
  });

  it('shows the queue state only when debugging', () => {
    const runs: RunSummary[] = [
      { root_id: 'r3', status: 'queued', queue_state: 'prioritized', objective: 'later', submitted_at: '2026-11-25T12:09:50.000Z', finished_at: null, duration_ms: 10_000, tokens: 0, cost_usd: 0 },
    ];
    expect(renderRuns(runs, NOW)).not.toContain('prioritized');
    expect(renderRuns(runs, NOW, { debug: true }).split('\n')).toEqual([
      'ROOT  STATUS  QUEUE        AGE   DURATION  TOKENS  COST  OBJECTIVE',
      'r3    queued  prioritized  10 s  10 s      -       -     later',
      '',
    ]);
  });

  it('says so when there are none', () => {
    expect(renderRuns([], NOW)).toContain('no runs (none running');
    expect(renderRuns([], NOW, { filtered: true })).toBe('no runs match\n');
  });
});
