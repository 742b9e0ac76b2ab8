import { ERROR_TYPES } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { crashedDraft, crashesOf, isPoison, stalledLimit } from './crash-guard.js';

describe('the crash guard', () => {
  it("counts a job's crashes by BullMQ's stalled counter, reading anything odd as none", () => {
    expect(crashesOf({ stalledCounter: 2 })).toBe(2);
    for (const odd of [0, -1, 1.5, Number.NaN, undefined as unknown as number]) expect(crashesOf({ stalledCounter: odd })).toBe(0);
  });

  it('takes a job for poison once its workers died the limit or more times', () => {
    expect([0, 1, 2, 3, 4].map((crashes) => isPoison(crashes, 3))).toEqual([false, false, false, true, true]);
  });

  it("leaves BullMQ's own stalled limit one past ours, so the runtime answers first", () => {
    // BullMQ fails a taken-back job once its counter exceeds maxStalledCount: at 4, when ours answers at 3.
    expect(stalledLimit(3)).toBe(4);
  });

  it('answers poison failed, not recoverable, naming the cause and the count', () => {
    expect(crashedDraft(3)).toMatchObject({ status: 'failed', error_type: ERROR_TYPES.workerCrashed, recoverable: false, confidence: 0 });
    expect(crashedDraft(3).error_detail).toMatch(/worker died 3 times/);
  });
});
