import { isTierflowError } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { resolveCodeRunnerLimits, wallTimeFor } from './limits.js';

describe('resolveCodeRunnerLimits', () => {
  it('fills in the defaults', () => {
    expect(resolveCodeRunnerLimits()).toEqual({ name: 'code-runner', cpuSeconds: 5, memoryMb: 256, wallMs: 10_000, maxOutputBytes: 1024 * 1024, fileMb: 16, maxProcesses: 64 });
  });

  it('keeps what is given', () => {
    expect(resolveCodeRunnerLimits({ name: 'py-tests', cpuSeconds: 2, memoryMb: 128, wallMs: 3_000, maxOutputBytes: 4_096, maxConcurrent: 2, fileMb: 4, maxProcesses: 32 })).toEqual({
      name: 'py-tests',
      cpuSeconds: 2,
      memoryMb: 128,
      wallMs: 3_000,
      maxOutputBytes: 4_096,
      maxConcurrent: 2,
      fileMb: 4,
      maxProcesses: 32,
    });
  });

  it('refuses limits out of bounds, naming each, and unknown options', () => {
    const error = (() => {
      try {
        return resolveCodeRunnerLimits({ cpuSeconds: 0, memoryMb: 1.5, wallMs: 10_000_000, maxProcesses: 2, ...({ cpu: 1 } as object) });
      } catch (e) {
        return e;
      }
    })();
    expect(isTierflowError(error) && !error.retryable && error.code).toBe('invalid_specialist');
    const message = (error as Error).message;
    for (const name of ['cpuSeconds', 'memoryMb', 'wallMs', 'maxProcesses', 'cpu']) expect(message).toContain(name);
  });
});

describe('wallTimeFor', () => {
  const limits = { wallMs: 10_000 };

  it('is the limit without a deadline, or with one further off', () => {
    expect(wallTimeFor(limits, null, 1_000)).toEqual({ ms: 10_000, byDeadline: false });
    expect(wallTimeFor(limits, 11_000, 1_000)).toEqual({ ms: 10_000, byDeadline: false });
  });

  it('is cut to the time left before a nearer deadline, never below 0', () => {
    expect(wallTimeFor(limits, 3_500.7, 1_000)).toEqual({ ms: 2_500, byDeadline: true });
    expect(wallTimeFor(limits, 500, 1_000)).toEqual({ ms: 0, byDeadline: true });
  });
});
