import type { OutcomeStatus } from '@tierflow/protocol';

/**
 * The error_type a tier reports for an aggregate, by status (docs/protocol.md#error-types):
 * `partial_completion` and `ambiguous_request`; a partial whose majority failed is
 * `majority_failed`, the Architect's cue to revise its strategy. The other statuses name
 * themselves; success has none.
 */
export const AGGREGATE_ERROR_TYPE: Readonly<Record<OutcomeStatus, (revise: boolean) => string | null>> = {
  success: () => null,
  partial: (revise) => (revise ? 'majority_failed' : 'partial_completion'),
  failed: () => 'all_failed',
  needs_clarification: () => 'ambiguous_request',
  cancelled: () => 'cancelled',
  timeout: () => 'timeout',
  blocked: () => 'blocked',
  throttled: () => 'throttled',
};

export function aggregateErrorType(status: OutcomeStatus, revise: boolean): string | null {
  return AGGREGATE_ERROR_TYPE[status](revise);
}
