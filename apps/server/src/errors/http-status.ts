import { isThrownCode, type ErrorKind, type ThrownCode } from '@tierflow/protocol';

/** The statuses the server answers a thrown error with. */
export type ErrorStatus = 400 | 403 | 404 | 409 | 413 | 500 | 503;

/** Each kind's HTTP status (docs/protocol.md#thrown-errors). */
export const HTTP_STATUS_OF_KIND = {
  invalid_input: 400,
  not_found: 404,
  conflict: 409,
  unavailable: 503,
  forbidden: 403,
  internal: 500,
} as const satisfies Readonly<Record<ErrorKind, ErrorStatus>>;

/**
 * The codes a server answers for as another kind than their own: a configuration it cannot use is
 * the deployment's fault, not the caller's, so it answers as internal and says nothing of it.
 */
const SERVED_KIND_OF_CODE: Readonly<Partial<Record<ThrownCode, ErrorKind>>> = { invalid_config: 'internal' };

/** The one code whose status says more than its kind's: a request over the limits (413). */
const STATUS_OF_CODE: Readonly<Partial<Record<ThrownCode, ErrorStatus>>> = { input_too_large: 413 };

/** The kind a server answers an error of `code` and `kind` as. Pure. */
export function servedKindOf(code: string, kind: ErrorKind): ErrorKind {
  return (isThrownCode(code) ? SERVED_KIND_OF_CODE[code] : undefined) ?? kind;
}

/** The HTTP status of an error of `code` and `kind`. Pure. */
export function httpStatusOf(code: string, kind: ErrorKind): ErrorStatus {
  return (isThrownCode(code) ? STATUS_OF_CODE[code] : undefined) ?? HTTP_STATUS_OF_KIND[servedKindOf(code, kind)];
}
