import { describe, expect, it } from 'vitest';
import { DEFAULT_RESTART_POLICY, describeExit, exitVerdict, restartDelayMs, restartsInARow } from './restart-policy.js';

describe('the restart policy of tierflow up', () => {
  it('waits 1 s before the first restart, doubling for each one in a row, capped at 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50, 5000].map((nth) => restartDelayMs(nth))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it('follows the policy it is given', () => {
    expect([1, 2, 3].map((nth) => restartDelayMs(nth, { firstDelayMs: 10, maxDelayMs: 25, stableAfterMs: 0, livenessMs: 1_000 }))).toEqual([10, 20, 25]);
  });

  it('counts restarts in a row while the process keeps dying young, and starts over once it stayed up a while', () => {
    expect(restartsInARow(0, 500)).toBe(1);
    expect(restartsInARow(4, DEFAULT_RESTART_POLICY.stableAfterMs - 1)).toBe(5);
    expect(restartsInARow(4, DEFAULT_RESTART_POLICY.stableAfterMs)).toBe(1);
  });

  it('restarts a crash, a signal or a clean exit, and stops everything on a configuration error (exit status 2)', () => {
    expect([1, 0, null, 137].map(exitVerdict)).toEqual(['restart', 'restart', 'restart', 'restart']);
    expect(exitVerdict(2)).toBe('config-error');
  });

  it('says how a process ended', () => {
    expect(describeExit(null, 'SIGKILL')).toBe('signal SIGKILL');
    expect(describeExit(1, null)).toBe('exit status 1');
  });
});
