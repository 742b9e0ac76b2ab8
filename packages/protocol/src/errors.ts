import { isErrorKind, kindOfCode, type ErrorKind, type ThrownCode } from './error-codes.js';

interface CommonOptions {
  /** Whether trying the same work again may succeed: retryable vs permanent (docs/protocol.md#retries). */
  readonly retryable?: boolean;
  readonly cause?: unknown;
}

/** One of Tierflow's codes: its kind comes from THROWN_ERRORS. */
interface OwnCodeOptions extends CommonOptions {
  readonly code: ThrownCode;
  readonly kind?: undefined;
}

/** A code of someone else's (a specialist's, say): it says its kind, which nothing could guess. */
interface ForeignCodeOptions extends CommonOptions {
  readonly code: string;
  readonly kind: ErrorKind;
}

/**
 * Options shared by every Tierflow error: a stable, machine-readable code (docs/protocol.md#thrown-errors),
 * e.g. `invalid_message`, `specialist_unavailable`; a code that is not Tierflow's needs its kind.
 */
export type TierflowErrorOptions = OwnCodeOptions | ForeignCodeOptions;

/** The options of the factories, which set `retryable` themselves. */
export type TierflowFactoryOptions = Omit<OwnCodeOptions, 'retryable'> | Omit<ForeignCodeOptions, 'retryable'>;

/**
 * The one base of Tierflow's errors: a literal `name`, a stable `code`, its `kind`, a `cause`, and
 * whether a retry may help. Use the factories rather than string-matching messages:
 *
 * ```ts
 * throw TierflowError.retryable('model endpoint busy', { code: 'llm_call_failed' });
 * throw TierflowError.permanent('no such repository', { code: 'repo_not_found', kind: 'not_found' });
 * ```
 */
export class TierflowError extends Error {
  override readonly name: string = 'TierflowError';
  readonly code: string;
  /** What sort of failure it is: a command's exit status, an HTTP status and an A2A error follow from it. */
  readonly kind: ErrorKind;
  readonly retryable: boolean;

  constructor(message: string, options: TierflowErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    // A code of Tierflow's has one kind wherever it is thrown.
    this.kind = kindOfCode(options.code, options.kind);
    this.retryable = options.retryable ?? false;
  }

  /** A transient failure: the runtime retries it with backoff. */
  static retryable(message: string, options: TierflowFactoryOptions = { code: 'transient' }): TierflowError {
    return new TierflowError(message, { ...options, retryable: true });
  }

  /** A permanent failure: the runtime fails at once with `recoverable: false`. */
  static permanent(message: string, options: TierflowFactoryOptions = { code: 'permanent' }): TierflowError {
    return new TierflowError(message, { ...options, retryable: false });
  }
}

/** True for a TierflowError (or a subclass), also across copies of this package. */
export function isTierflowError(error: unknown): error is TierflowError {
  return error instanceof TierflowError || (error instanceof Error && typeof (error as Partial<TierflowError>).code === 'string' && typeof (error as Partial<TierflowError>).retryable === 'boolean');
}

/**
 * The kind of any thrown value: a TierflowError's own (one from another copy of this package may
 * carry none: its code's), `internal` for anything else.
 */
export function errorKindOf(error: unknown): ErrorKind {
  if (!isTierflowError(error)) return 'internal';
  const kind = (error as Partial<TierflowError>).kind;
  return kindOfCode(error.code, isErrorKind(kind) ? kind : 'internal');
}
