import { toJsonRpcError } from '@a2a-js/sdk/errors';
import { ERROR_KINDS, type ErrorKind } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { a2aErrorOf } from './a2a-errors.js';

/** The JSON-RPC error code an error of `code` and `kind` goes out with; null for none of its own. */
function rpcCodeOf(code: string, kind: ErrorKind): number | null {
  const As = a2aErrorOf(code, kind);
  return As ? toJsonRpcError(new As('x')).code : null;
}

describe('a2aErrorOf', () => {
  const table: readonly (readonly [ErrorKind, number | null])[] = [
    ['invalid_input', -32602],
    ['not_found', -32001],
    ['conflict', -32004],
    ['unavailable', null],
    ['forbidden', null],
    ['internal', null],
  ];

  it.each(table)('%s goes out as %s', (kind, rpcCode) => expect(rpcCodeOf('some_code_of_a_specialist', kind)).toBe(rpcCode));

  it('covers every kind', () => expect(table.map(([kind]) => kind).sort()).toEqual([...ERROR_KINDS].sort()));

  it.each([
    ['invalid_objective', 'invalid_input', -32602],
    ['input_too_large', 'invalid_input', -32602],
    ['unknown_question', 'invalid_input', -32602],
    ['not_waiting', 'conflict', -32004],
    ['already_answered', 'conflict', -32004],
    ['invalid_config', 'invalid_input', null],
  ] as const)('answers %s as it always has', (code, kind, rpcCode) => expect(rpcCodeOf(code, kind)).toBe(rpcCode));
});
