import { describe, expect, it } from 'vitest';
import { bodyLimitOf, SMALL_BODY_BYTES } from './body-limits.js';

describe('bodyLimitOf', () => {
  const limits = { objectiveBytes: 1_000_000, ownLimit: new Set(['/a2a']) };

  it('gives an objective’s worth to enqueue, a small limit to every other body read, and none to reads', () => {
    expect(bodyLimitOf('POST', '/api/runs', limits)).toBe(1_000_000);
    expect(bodyLimitOf('POST', '/queues/api/queues/monitor/add', limits)).toBe(1_000_000);
    for (const path of ['/api/session', '/api/runs/x/cancel', '/api/runs/x/answer', '/anything']) expect([path, bodyLimitOf('POST', path, limits)]).toEqual([path, SMALL_BODY_BYTES]);
    expect(bodyLimitOf('PUT', '/api/runs/x', limits)).toBe(SMALL_BODY_BYTES);
    expect(bodyLimitOf('GET', '/api/runs', limits)).toBeNull();
    expect(bodyLimitOf('POST', '/a2a', limits)).toBeNull();
  });
});
