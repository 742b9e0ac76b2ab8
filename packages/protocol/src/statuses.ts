import { z } from 'zod';

/** Every outcome status, as sent on the wire (docs/protocol.md#outcome-statuses). */
export const OUTCOME_STATUSES = ['success', 'partial', 'failed', 'blocked', 'needs_clarification', 'timeout', 'cancelled', 'throttled'] as const;

export const outcomeStatusSchema = z.enum(OUTCOME_STATUSES).meta({
  description:
    'success: completed as requested; partial: some objectives met; failed: could not complete; blocked: waiting on an external dependency; ' +
    'needs_clarification: ambiguous request; timeout: exceeded timeout_ms; cancelled: aborted by a higher tier; throttled: receiver overloaded, try later.',
});
export type OutcomeStatus = z.infer<typeof outcomeStatusSchema>;

/**
 * Statuses that may carry `error_type`, `error_detail` and `recoverable`.
 * A partial aggregate, a timeout and a throttle each have a reason worth sending, so every status
 * but `success` is an error status (docs/protocol.md#error-fields).
 */
export function isErrorStatus(status: OutcomeStatus): boolean {
  return status !== 'success';
}
