import { ERROR_KINDS, TierflowError, type ErrorKind } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { httpStatusOf, servedKindOf } from './http-status.js';

describe('httpStatusOf', () => {
  const table: readonly (readonly [ErrorKind, number])[] = [
    ['invalid_input', 400],
    ['not_found', 404],
    ['conflict', 409],
    ['unavailable', 503],
    ['forbidden', 403],
    ['internal', 500],
  ];

  it.each(table)('%s answers %i', (kind, status) => expect(httpStatusOf('some_code_of_a_specialist', kind)).toBe(status));

  it('covers every kind', () => expect(table.map(([kind]) => kind).sort()).toEqual([...ERROR_KINDS].sort()));

  it.each([
    ['invalid_objective', 400],
    ['invalid_answer', 400],
    ['unknown_question', 400],
    ['input_too_large', 413],
    ['not_waiting', 409],
    ['already_answered', 409],
    ['redis_unreachable', 503],
    ['root_not_found', 404],
    ['beads_write_denied', 403],
    ['corrupt_record', 500],
    // The deployment's own configuration is not the caller's fault.
    ['invalid_config', 500],
  ] as const)('%s answers %i', (code, status) => {
    const error = TierflowError.permanent('x', { code });
    expect(httpStatusOf(error.code, error.kind)).toBe(status);
  });
});

describe('servedKindOf', () => {
  it('answers a configuration error as internal, and keeps every other kind', () => {
    expect(servedKindOf('invalid_config', 'invalid_input')).toBe('internal');
    expect(servedKindOf('invalid_objective', 'invalid_input')).toBe('invalid_input');
    expect(servedKindOf('mine', 'conflict')).toBe('conflict');
  });
});
