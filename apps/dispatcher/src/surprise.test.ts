import { describe, expect, it } from 'vitest';
import { leafSurprise, SURPRISE_MIN_SAMPLES } from './surprise.js';
import { statsAfter } from './test-history.js';

const leaf = { specialist: 'coder', status: 'success' as const, latency_ms: 100 };

describe('leafSurprise', () => {
  it('judges nothing without enough history', () => {
    expect(leafSurprise({ ...leaf, status: 'failed', latency_ms: 1e6 }, null)).toBeNull();
    expect(leafSurprise({ ...leaf, status: 'failed', latency_ms: 1e6 }, statsAfter(SURPRISE_MIN_SAMPLES - 1, 0))).toBeNull();
  });

  it('flags a leaf well past the specialist’s 99th percentile', () => {
    const steady = statsAfter(40, 0, 100);
    expect(leafSurprise({ ...leaf, latency_ms: 100 }, steady)).toBeNull();
    expect(leafSurprise({ ...leaf, latency_ms: 125 }, steady)).toBeNull();
    expect(leafSurprise({ ...leaf, latency_ms: 5_000 }, steady)).toMatch(/^took 5000 ms, over coder's p99 of \d+ ms$/);
  });

  it('flags a failure of a specialist that nearly always succeeds, and a success of one that nearly always fails', () => {
    expect(leafSurprise({ ...leaf, status: 'failed' }, statsAfter(40, 0))).toBe('failed where coder succeeds 100 % of the time');
    expect(leafSurprise({ ...leaf, status: 'timeout' }, statsAfter(39, 1))).toBe('timeout where coder succeeds 97.5 % of the time');
    expect(leafSurprise({ ...leaf, status: 'failed' }, statsAfter(30, 10))).toBeNull();
    expect(leafSurprise(leaf, statsAfter(0, 40))).toBe('succeeded where coder fails 100 % of the time');
    expect(leafSurprise({ ...leaf, status: 'partial' }, statsAfter(40, 0))).toBeNull();
  });

  it('names every reason at once, and never judges a cancelled or throttled leaf', () => {
    expect(leafSurprise({ ...leaf, status: 'failed', latency_ms: 5_000 }, statsAfter(40, 0, 100))).toMatch(/^took 5000 ms, .*, failed where coder succeeds 100 % of the time$/);
    expect(leafSurprise({ ...leaf, status: 'cancelled', latency_ms: 5_000 }, statsAfter(40, 0))).toBeNull();
    expect(leafSurprise({ ...leaf, status: 'throttled', latency_ms: 5_000 }, statsAfter(40, 0))).toBeNull();
  });
});
