import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { describe, expect, it } from 'vitest';
import { delegationRefusalOf, refusedResult } from './delegation-refusal.js';

describe('a remote Tierflow’s refusal', () => {
  it.each([
    [
      'named in the metadata',
      new UnsupportedOperationError({ message: 'delegation_cycle: the path d-a -> d-a', metadata: { error_type: 'delegation_cycle' } }),
      'delegation_cycle',
      'the path d-a -> d-a',
    ],
    ['said in the message alone', new Error('Unsupported operation: delegation_too_deep: crossed 2'), 'delegation_too_deep', 'crossed 2'],
    ['another refusal', new UnsupportedOperationError('task t is over'), null, null],
    ['an unknown code in the metadata', new UnsupportedOperationError({ message: 'no', metadata: { error_type: 'other' } }), null, null],
    ['not an error', 'delegation_cycle: x', null, null],
  ] as const)('is read from an error %s', (_, error, type, reason) => {
    const refusal = delegationRefusalOf(error);
    expect(refusal?.error_type ?? null).toBe(type);
    expect(refusal?.reason ?? null).toBe(reason);
  });

  it('fails the subtask for good', () => {
    expect(refusedResult('remote', { error_type: 'delegation_cycle', reason: 'a cycle' })).toMatchObject({
      status: 'failed',
      error_type: 'delegation_cycle',
      error_detail: 'a cycle',
      recoverable: false,
      summary: 'remote: the remote agent refused the work: a cycle',
    });
  });
});
