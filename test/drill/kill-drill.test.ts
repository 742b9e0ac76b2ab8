import { describe, expect, it } from 'vitest';
import { runDrill } from './kill-drill.js';

describe('the kill drill, short form', () => {
  it('every root reaches a final outcome, nothing runs twice, nothing is left behind, while workers are killed', async () => {
    const report = await runDrill({ roots: 60, workersPerTier: 2, killEveryMs: 1000, killForMs: 5000, minKills: 4, lockDurationMs: 2000, stalledIntervalMs: 1000 });
    expect(report.finished).toBe(60);
    expect(report.kills).toBeGreaterThanOrEqual(4);
    expect(report.duplicateExecutions).toBe(0);
    // Locks of 2 s checked every 1 s: a dead worker's jobs come back about 3 s after the kill (more on a loaded machine).
    if (report.reclaimMs) expect(report.reclaimMs.max).toBeLessThan(15_000);
    expect(report.leftActive).toBe(0);
    expect(report.leftWaitingChildren).toBe(0);
  }, 180_000);

  it('and over cells on a Redis Cluster of three masters: the same, each run within its cell', async () => {
    const report = await runDrill({ roots: 40, workersPerTier: 2, killEveryMs: 1000, killForMs: 4000, minKills: 3, lockDurationMs: 2000, stalledIntervalMs: 1000, cluster: { masters: 3, cells: 6 } });
    expect(report.finished).toBe(40);
    expect(report.kills).toBeGreaterThanOrEqual(3);
    expect(report.duplicateExecutions).toBe(0);
    expect(report.leftActive).toBe(0);
    expect(report.leftWaitingChildren).toBe(0);
  }, 180_000);
});
