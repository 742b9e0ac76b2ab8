import { describe, expect, it } from 'vitest';
import { objectiveTimeoutOf, rootRecordOf } from './root-record.js';

const data = (objective: unknown): string => JSON.stringify({ kind: 'root', root_id: 'r', objective });

describe('rootRecordOf', () => {
  it('tells a missing job from an unfinished, completed or failed one', () => {
    expect(rootRecordOf([null, [null, null, null, null]], false)).toEqual({ state: 'missing' });
    expect(rootRecordOf([null, ['1700000000000', null, null, null]], false)).toEqual({ state: 'unfinished' });
    // A retried attempt leaves its reason but no finishedOn: still running.
    expect(rootRecordOf([null, ['1700000000000', null, null, 'try 1 failed']], false)).toEqual({ state: 'unfinished' });
    expect(rootRecordOf([null, ['1700000000000', '1700000001000', '{"x":1}', 'an earlier try']], false)).toEqual({ state: 'completed', returnvalue: '{"x":1}' });
    expect(rootRecordOf([null, ['1700000000000', '1700000001000', null, 'stalled']], false)).toEqual({ state: 'failed', reason: 'stalled' });
    expect(rootRecordOf([null, ['1700000000000', '1700000001000', null, null]], false)).toEqual({ state: 'failed', reason: 'no reason recorded' });
  });

  it("reads the objective's timeout_ms when asked for the data", () => {
    expect(rootRecordOf([null, ['1', null, null, null, data({ objective: 'o', timeout_ms: 2_000 })]], true)).toEqual({ state: 'unfinished', timeoutMs: 2_000 });
    expect(rootRecordOf([null, ['1', null, null, null, data({ objective: 'o' })]], true)).toEqual({ state: 'unfinished', timeoutMs: null });
    expect(rootRecordOf([null, [null, null, null, null, null]], true)).toEqual({ state: 'missing' });
  });

  it('calls a key of another type unreadable, and other errors unknown', () => {
    expect(rootRecordOf([new Error('WRONGTYPE Operation against a key holding the wrong kind of value'), null], false)).toMatchObject({ state: 'unreadable' });
    expect(rootRecordOf([new Error('NOPERM this user has no permissions to access one of the keys'), null], false)).toMatchObject({ state: 'unknown' });
    expect(rootRecordOf(undefined, false)).toMatchObject({ state: 'unknown' });
    expect(rootRecordOf([null, 'OK'], false)).toMatchObject({ state: 'unreadable' });
    expect(rootRecordOf([null, [1, 2, 3, 4]], false)).toMatchObject({ state: 'unreadable' });
    expect(rootRecordOf([null, [null, null, null]], false)).toMatchObject({ state: 'unreadable' });
  });
});

describe('objectiveTimeoutOf', () => {
  it('is null for data without a readable positive whole timeout', () => {
    expect(objectiveTimeoutOf(data({ objective: 'o', timeout_ms: 1_500 }))).toBe(1_500);
    for (const bad of [null, '', 'not json', '42', '{}', data({ timeout_ms: 'soon' }), data({ timeout_ms: -5 }), data({ timeout_ms: 1.5 }), data(null)]) {
      expect(objectiveTimeoutOf(bad)).toBeNull();
    }
  });
});
