import { OUTCOME_STATUSES, type OutcomeStatus } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { childName, classifyChild, countChildren, isRecoverableFailure, nonBlank, type ChildClass, type ChildResult } from './child-result.js';

describe('classifyChild', () => {
  it.each<[OutcomeStatus, ChildClass]>([
    ['success', 'succeeded'],
    ['partial', 'progressed'],
    ['failed', 'failed'],
    ['timeout', 'failed'],
    ['blocked', 'waits'],
    ['throttled', 'failed'],
    ['needs_clarification', 'asks'],
    ['cancelled', 'cancelled'],
  ])('%s → %s', (status, kind) => {
    expect(classifyChild({ status })).toBe(kind);
  });

  it('classifies every status', () => {
    expect(countChildren(OUTCOME_STATUSES.map((status) => ({ status })))).toEqual({
      total: 8,
      succeeded: 1,
      progressed: 1,
      failed: 3,
      asks: 1,
      waits: 1,
      cancelled: 1,
    });
  });
});

describe('isRecoverableFailure', () => {
  const child = (status: OutcomeStatus, recoverable: boolean | null | undefined): ChildResult => ({
    message_id: 'msg-1',
    specialist: 's',
    status,
    confidence: 0,
    ...(recoverable === undefined ? {} : { recoverable }),
  });

  it.each<[OutcomeStatus, boolean | null | undefined, boolean]>([
    ['failed', undefined, true],
    ['failed', null, true],
    ['failed', true, true],
    ['failed', false, false],
    ['timeout', false, false],
    ['throttled', false, true],
  ])('%s with recoverable %s → %s', (status, recoverable, expected) => {
    expect(isRecoverableFailure(child(status, recoverable))).toBe(expected);
  });
});

describe('report helpers', () => {
  it.each<[string, string]>([
    ['python-lora', 'python-lora'],
    ['', 'msg-1'],
    ['  ', 'msg-1'],
  ])('childName with specialist %j → %s', (specialist, name) => {
    expect(childName({ specialist, message_id: 'msg-1' })).toBe(name);
  });

  it.each<[string | null | undefined, string | null]>([
    [undefined, null],
    [null, null],
    ['', null],
    [' \n', null],
    [' why? ', 'why?'],
  ])('nonBlank(%j) → %j', (text, expected) => {
    expect(nonBlank(text)).toBe(expected);
  });
});
