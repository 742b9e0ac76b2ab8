/** Options shared by every Tierflow error. */
export interface TierflowErrorOptions {
  /** A stable, machine-readable code, e.g. `invalid_message`, `specialist_unavailable`. */
  readonly code: string;
  /** Whether trying the same work again may succeed: retryable vs permanent (docs/protocol.md#retries). */
  readonly retryable?: boolean;
  readonly cause?: unknown;
}

/**
 * The one base of Tierflow's errors: a literal `name`, a stable `code`, a `cause`, and whether a
 * retry may help. Use the factories rather than string-matching messages:
 *
 * ```ts
 * throw TierflowError.retryable('model endpoint busy', { code: 'upstream_busy' });
 * throw TierflowError.permanent('no such repository', { code: 'not_found' });
 * ```
 */
export class TierflowError extends Error {
  override readonly name: string = 'TierflowError';
  readonly code: string;
  readonly retryable: boolean;

  constructor(message: string, options: TierflowErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.retryable = options.retryable ?? false;
  }

  /** A transient failure: the runtime retries it with backoff. */
  static retryable(message: string, options: Omit<TierflowErrorOptions, 'retryable'> = { code: 'transient' }): TierflowError {
    return new TierflowError(message, { ...options, retryable: true });
  }

  /** A permanent failure: the runtime fails at once with `recoverable: false`. */
  static permanent(message: string, options: Omit<TierflowErrorOptions, 'retryable'> = { code: 'permanent' }): TierflowError {
    return new TierflowError(message, { ...options, retryable: false });
  }
}

/** True for a TierflowError (or a subclass), also across copies of this package. */
export function isTierflowError(error: unknown): error is TierflowError {
  return error instanceof TierflowError || (error instanceof Error && typeof (error as Partial<TierflowError>).code === 'string' && typeof (error as Partial<TierflowError>).retryable === 'boolean');
}
