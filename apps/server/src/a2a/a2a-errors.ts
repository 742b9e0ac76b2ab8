import { RequestMalformedError, TaskNotFoundError, UnsupportedOperationError, type A2AError } from '@a2a-js/sdk/errors';
import type { ErrorKind } from '@tierflow/protocol';
import { servedKindOf } from '../errors/http-status.js';

type A2AErrorClass = new (message: string) => A2AError;

/**
 * The A2A error each kind is answered with (docs/protocol.md#thrown-errors): the caller's
 * refusals as A2A says them (JSON-RPC -32602, -32001, -32004); `null` for the rest, which the
 * handler logs and answers as a plain internal error, so that nothing of the server leaks.
 */
export const A2A_ERROR_OF_KIND = {
  invalid_input: RequestMalformedError,
  not_found: TaskNotFoundError,
  conflict: UnsupportedOperationError,
  unavailable: null,
  forbidden: null,
  internal: null,
} as const satisfies Readonly<Record<ErrorKind, A2AErrorClass | null>>;

/** The A2A error class for an error of `code` and `kind`, or null for an internal error. Pure. */
export function a2aErrorOf(code: string, kind: ErrorKind): A2AErrorClass | null {
  return A2A_ERROR_OF_KIND[servedKindOf(code, kind)];
}
