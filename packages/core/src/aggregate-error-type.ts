import { ERROR_TYPES, type ErrorType, type OutcomeStatus } from '@tierflow/protocol';

/**
 * The error_type a tier reports for an aggregate, by status (docs/protocol.md#error-types):
 * `partial_completion` and `ambiguous_request`; a partial whose majority failed is
 * `majority_failed`, the Architect's cue to revise its strategy. The other statuses name
 * themselves; success has none.
 */
export const AGGREGATE_ERROR_TYPE: Readonly<Record<OutcomeStatus, (revise: boolean) => ErrorType | null>> = {
  success: () => null,
  partial: (revise) => (revise ? ERROR_TYPES.majorityFailed : ERROR_TYPES.partialCompletion),
  failed: () => ERROR_TYPES.allFailed,
  needs_clarification: () => ERROR_TYPES.ambiguousRequest,
  cancelled: () => ERROR_TYPES.cancelled,
  timeout: () => ERROR_TYPES.timeout,
  blocked: () => ERROR_TYPES.blocked,
  throttled: () => ERROR_TYPES.throttled,
};

export function aggregateErrorType(status: OutcomeStatus, revise: boolean): ErrorType | null {
  return AGGREGATE_ERROR_TYPE[status](revise);
}
