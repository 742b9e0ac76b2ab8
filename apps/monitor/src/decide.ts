import type { OutcomeStatus } from '@tierflow/protocol';

/** The Monitor's next move once the Architect has answered. */
export type MonitorDecision =
  /** The question, or the blocker, goes to whoever submitted the objective (docs/protocol.md#clarification, docs/protocol.md#blocked-work). */
  | 'pass_up'
  /** An Architect failure gets one fresh attempt (docs/protocol.md#escalation). */
  | 'reset'
  /** Judge the outcome against the learned bounds, record it, and report it. */
  | 'evaluate';

/**
 * Pass up, reset or evaluate. Only a `failed` outcome that says it may succeed if tried again
 * (`recoverable: true`) is reset, and only while resets are left. Pure.
 */
export function decideMonitor(outcome: { readonly status: OutcomeStatus; readonly recoverable: boolean | null }, resets: number, maxResets: number): MonitorDecision {
  if (outcome.status === 'needs_clarification' || outcome.status === 'blocked') return 'pass_up';
  if (outcome.status === 'failed' && outcome.recoverable === true && resets < maxResets) return 'reset';
  return 'evaluate';
}
