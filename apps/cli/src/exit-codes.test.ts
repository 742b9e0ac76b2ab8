import { ERROR_KINDS, errorKindOf, TierflowError, type ErrorKind } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { exitCodeOf } from './exit-codes.js';

describe('exitCodeOf', () => {
  const table: readonly (readonly [ErrorKind, number])[] = [
    ['invalid_input', 2],
    ['not_found', 1],
    ['conflict', 2],
    ['unavailable', 3],
    ['forbidden', 2],
    ['internal', 2],
  ];

  it.each(table)('%s exits %i', (kind, code) => expect(exitCodeOf(kind)).toBe(code));

  it('covers every kind', () => expect(table.map(([kind]) => kind).sort()).toEqual([...ERROR_KINDS].sort()));

  it.each([
    ['a configuration error', TierflowError.permanent('REDIS_URL is not a URL', { code: 'invalid_config' }), 2],
    ['a Redis that cannot be reached', TierflowError.retryable('cannot reach Redis at redis://127.0.0.1:9/0: connection refused', { code: 'redis_unreachable' }), 3],
    ['a root that is not there', TierflowError.permanent('no root objective r-1', { code: 'root_not_found' }), 1],
    ['an error of no kind of ours', new Error('boom'), 2],
  ] as const)('gives %s the status it has always had', (_name, error, code) => expect(exitCodeOf(errorKindOf(error))).toBe(code));
});
