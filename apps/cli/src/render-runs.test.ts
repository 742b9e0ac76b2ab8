import { describe, expect, it } from 'vitest';
import { renderRuns } from './render-runs.js';

const NOW = Date.parse('2026-11-25T12:10:00.000Z');

describe('renderRuns', () => {
  it('lists runs with status, age, duration and objective', () => {
    const runs = [
      { root_id: 'r2', status: 'running', objective: 'a long one', submitted_at: '2026-11-25T12:09:30.000Z', finished_at: null, duration_ms: 29_000 },
      { root_id: 'r1', status: 'success', objective: 'binary search', submitted_at: '2026-11-25T12:00:00.000Z', finished_at: '2026-11-25T12:00:02.000Z', duration_ms: 1_950 },
    ];
    expect(renderRuns(runs, NOW).split('\n')).toEqual([
      'ROOT  STATUS   AGE     DURATION  OBJECTIVE',
      'r2    running  30 s    29 s      a long one',
      'r1    success  10 min  1.9 s     binary search',
      '',
    ]);
  });

  it('says so when there are none', () => {
    expect(renderRuns([], NOW)).toContain('no runs');
  });
});
