import { ERROR_TYPES } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { crashedDraft, crashesOf, crashVerdict, runsAloneFrom, stalledLimit, type CrashVerdict } from './crash-guard.js';

describe('the crash guard', () => {
  it("counts a job's crashes by BullMQ's stalled counter, reading anything odd as none", () => {
    expect(crashesOf({ stalledCounter: 2 })).toBe(2);
    for (const odd of [0, -1, 1.5, Number.NaN, undefined as unknown as number]) expect(crashesOf({ stalledCounter: odd })).toBe(0);
  });

  it('runs a job alone from the death before the limit, and never before a first death', () => {
    expect([1, 2, 3, 4].map(runsAloneFrom)).toEqual([1, 1, 2, 3]);
  });

  // [crashes, deaths while it ran alone, limit] → verdict
  const table: [number, number, number, CrashVerdict][] = [
    [0, 0, 3, 'run'],
    [1, 0, 3, 'run'],
    // The next death would be the third: it happens with the job alone.
    [2, 0, 3, 'run-alone'],
    [2, 1, 3, 'run-alone'],
    // Three deaths, one of them alone: poison.
    [3, 1, 3, 'answer-crashed'],
    [5, 2, 3, 'answer-crashed'],
    // Three deaths, each beside other jobs: a bystander until a death alone says otherwise.
    [3, 0, 3, 'run-alone'],
    [12, 0, 3, 'run-alone'],
    // A limit of one still needs a death alone.
    [1, 0, 1, 'run-alone'],
    [2, 1, 1, 'answer-crashed'],
    [0, 0, 1, 'run'],
  ];
  it.each(table)('a job with %i deaths, %i of them alone, limit %i: %s', (crashes, aloneDeaths, maxCrashes, verdict) => {
    expect(crashVerdict(crashes, aloneDeaths, maxCrashes)).toBe(verdict);
  });

  it("leaves BullMQ's own stalled limit past ours by the worker's concurrency, so bystanders waiting to run alone are not failed by it", () => {
    expect(stalledLimit(3, 32)).toBe(35);
    expect(stalledLimit(3, 0)).toBe(4);
  });

  it('answers poison failed, not recoverable, naming the cause and the count', () => {
    expect(crashedDraft(3)).toMatchObject({ status: 'failed', error_type: ERROR_TYPES.workerCrashed, recoverable: false, confidence: 0 });
    expect(crashedDraft(3).error_detail).toMatch(/worker died 3 times/);
  });
});
