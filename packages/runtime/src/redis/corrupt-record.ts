import { ERROR_TYPES, TierflowError } from '@tierflow/protocol';

/**
 * A record the runtime wrote and now cannot read back: not JSON, or not the shape it wrote.
 * Something other than the runtime changed it (or a bug did); retrying would read the same
 * bytes, so the work it belongs to answers `failed` with error_type `corrupt_record` at once.
 */
export class CorruptRecordError extends TierflowError {
  override readonly name = 'CorruptRecordError';

  constructor(
    /** The Redis key of the record, for the operator who looks into it. */
    readonly key: string,
    reason: string,
  ) {
    super(`${key} holds a corrupt record: ${reason}`, { code: ERROR_TYPES.corruptRecord, retryable: false });
  }
}
