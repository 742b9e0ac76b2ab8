import { describe, expect, it } from 'vitest';
import { readBeats } from './heartbeat.js';

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
