import { z } from 'zod';

/** Every outcome status of seed 000, as sent on the wire. */
export const OUTCOME_STATUSES = [
  'success',
  'partial',
  'failed',
  'blocked',
  'needs_clarification',
  'timeout',
  'cancelled',
  'throttled',
] as const;

export const outcomeStatusSchema = z.enum(OUTCOME_STATUSES).meta({
  description:
    'success: completed as requested; partial: some objectives met; failed: could not complete; blocked: waiting on an external dependency; ' +
    'needs_clarification: ambiguous request; timeout: exceeded timeout_ms; cancelled: aborted by a higher tier; throttled: receiver overloaded, try later.',
});
export type OutcomeStatus = z.infer<typeof outcomeStatusSchema>;

/**
 * Statuses that may carry `error_type`, `error_detail` and `recoverable`.
 * Seed 000 names failed, blocked and needs_clarification, yet its own aggregated example sends
 * error fields with `partial`, and a timeout or a throttle has a reason too: so every status but
 * `success` is an error status here.
 */
export function isErrorStatus(status: OutcomeStatus): boolean {
  return status !== 'success';
}
