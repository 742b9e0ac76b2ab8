import type { WorkerBeat } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import { renderWorkers } from './render-workers.js';

const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const beat = (overrides: Partial<WorkerBeat>): WorkerBeat => ({
  tier: 'SPECIALIZED_FLEET',
  host: 'node-1',
  pid: 4242,
  started_at: '2026-11-25T11:00:00.000Z',
  beat_at: '2026-11-25T11:59:58.000Z',
  concurrency: 8,
  running: 3,
  specialists: ['python-lora', 'sim'],
  ...overrides,
});

describe('renderWorkers', () => {
  it('lists each process with its tier, age, load and last beat', () => {
    expect(renderWorkers([beat({ tier: 'PROGRESS_MONITOR', specialists: null, running: 0, started_at: '2026-11-25T11:59:00.000Z' }), beat({})], NOW).split('\n')).toEqual([
      'TIER     HOST    PID   UP      RUNNING  CONCURRENCY  LAST BEAT  SPECIALISTS',
      'monitor  node-1  4242  60 s    0        8            2 s ago',
      'fleet    node-1  4242  60 min  3        8            2 s ago    python-lora, sim',
      '',
    ]);
  });

  it('says where each serves its metrics, when any does', () => {
    expect(renderWorkers([beat({ specialists: null, metrics_url: 'http://localhost:9464/metrics' }), beat({ pid: 4243, metrics_url: null })], NOW).split('\n')).toEqual([
      'TIER   HOST    PID   UP      RUNNING  CONCURRENCY  LAST BEAT  METRICS                        SPECIALISTS',
      'fleet  node-1  4242  60 min  3        8            2 s ago    http://localhost:9464/metrics',
      'fleet  node-1  4243  60 min  3        8            2 s ago                                   python-lora, sim',
      '',
    ]);
  });

  it('says so when no worker beats', () => {
    expect(renderWorkers([], NOW)).toBe('no workers: none has written a heartbeat lately\n');
  });
});
