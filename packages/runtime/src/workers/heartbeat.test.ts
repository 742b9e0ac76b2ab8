import { describe, expect, it } from 'vitest';
import { mergeBeats, readBeats } from './heartbeat.js';

const beat = (tier: string, pid: number) => ({ tier, host: 'h', pid, started_at: '2026-11-25T11:00:00.000Z', beat_at: '2026-11-25T11:00:01.000Z', concurrency: 8, running: 0, specialists: null });

describe('readBeats', () => {
  it('keeps the records that parse, sorted from the Monitor down, then by host and pid', () => {
    const texts = [
      JSON.stringify(beat('SPECIALIZED_FLEET', 2)),
      null,
      '{',
      JSON.stringify({ tier: 'x' }),
      JSON.stringify(beat('ABSTRACT_ARCHITECT', 9)),
      JSON.stringify(beat('PROGRESS_MONITOR', 5)),
      JSON.stringify(beat('SPECIALIZED_FLEET', 1)),
    ];
    expect(readBeats(texts).map((record) => [record.tier, record.pid])).toEqual([
      ['PROGRESS_MONITOR', 5],
      ['ABSTRACT_ARCHITECT', 9],
      ['SPECIALIZED_FLEET', 1],
      ['SPECIALIZED_FLEET', 2],
    ]);
  });
});

describe('a beat and its metrics endpoint', () => {
  it('reads a beat of an earlier version, without one, as it is', () => {
    expect(readBeats([JSON.stringify(beat('SPECIALIZED_FLEET', 1))])[0]).not.toHaveProperty('metrics_url');
  });

  it('keeps where a worker serves its metrics, or null', () => {
    const texts = [JSON.stringify({ ...beat('SPECIALIZED_FLEET', 1), metrics_url: 'http://localhost:9465/metrics' }), JSON.stringify({ ...beat('SPECIALIZED_FLEET', 2), metrics_url: null })];
    expect(readBeats(texts).map((record) => record.metrics_url)).toEqual(['http://localhost:9465/metrics', null]);
  });
});

describe('mergeBeats', () => {
  it('reads a process that beats once per cell as one worker, its jobs summed, its oldest start and latest beat kept', () => {
    const cell0 = { ...beat('ROUTING_DISPATCHER', 7), running: 2 };
    const cell1 = { ...beat('ROUTING_DISPATCHER', 7), running: 1, started_at: '2026-11-25T10:59:59.000Z', beat_at: '2026-11-25T11:00:02.000Z' };
    expect(mergeBeats([cell0, beat('SPECIALIZED_FLEET', 7), cell1])).toEqual([
      { ...cell0, concurrency: 16, running: 3, started_at: '2026-11-25T10:59:59.000Z', beat_at: '2026-11-25T11:00:02.000Z' },
      beat('SPECIALIZED_FLEET', 7),
    ]);
  });
});
