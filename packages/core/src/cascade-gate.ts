import { type CascadeCheck, ERROR_TYPES, type LowConfidencePolicy, type OutcomePayload, type TierName } from '@tierflow/protocol';
import { CASCADE_SEVERITY, cascadeCheck, DEFAULT_CASCADE_THRESHOLDS, resolveCascadeThresholds, type CascadeThresholds } from './confidence-cascade.js';

/** One upstream outcome as its receiver reads it: the outcome message id and its payload. */
export interface UpstreamOutcome {
  readonly id: string;
  readonly payload: OutcomePayload;
}

/** The check made (null when the outcome was not one to check) and the payload the receiver goes on with. */
export interface GatedOutcome {
  readonly check: CascadeCheck | null;
  readonly payload: OutcomePayload;
}

/**
 * The confidence cascade check (docs/protocol.md#confidence-cascade), applied by a receiving tier
 * to upstream work before it relies on it. Only `success` is checked: any other status already
 * says the work fell short, and an aggregate's confidence then counts its failed children at 0,
 * so checking it again would punish the same failure twice.
 *
 * | Action                | What the receiver goes on with                                                       |
 * | --------------------- | ------------------------------------------------------------------------------------ |
 * | `proceed`             | the outcome as it came                                                               |
 * | `flag_uncertainty`    | the outcome as it came; the flag travels up in `cascade_check`                       |
 * | `needs_review`        | `needs_clarification`, error_type `needs_review`: a person must look before it is used; it flows up unchanged, like a clarification |
 * | `reject_and_escalate` | `failed`, error_type `low_confidence`, recoverable: escalated to the owner, who may revise |
 *
 * That is the `escalate` policy (docs/protocol.md#error-policies), the default. Under the flag
 * bound, the delegation's `on_low_confidence` may ask otherwise: `flag_and_continue` goes on with
 * the outcome as it came, flagged (`flag_uncertainty`, its threshold the one missed);
 * `retry` answers `failed`, error_type `low_confidence_retry`, recoverable, which tells the
 * sender to send the work once more with the concern attached.
 *
 * Pure.
 */
export function gateUpstream(upstream: UpstreamOutcome, checkedBy: TierName, thresholds: CascadeThresholds = DEFAULT_CASCADE_THRESHOLDS, onLow: LowConfidencePolicy = 'escalate'): GatedOutcome {
  const { payload } = upstream;
  if (payload.status !== 'success') return { check: null, payload };
  const decision = cascadeCheck(payload.confidence, thresholds);
  const check: CascadeCheck = { ...decision, upstream_id: upstream.id, checked_by: checkedBy };
  const bounds = thresholds === DEFAULT_CASCADE_THRESHOLDS ? thresholds : resolveCascadeThresholds(thresholds);
  const under = (bound: number): string => `confidence ${payload.confidence.toFixed(2)} of ${upstream.id} is under ${bound}`;
  const low = decision.action === 'needs_review' || decision.action === 'reject_and_escalate';
  if (low && onLow === 'flag_and_continue') return { check: { ...check, action: 'flag_uncertainty' }, payload };
  if (low && onLow === 'retry') {
    return {
      check,
      payload: {
        ...payload,
        status: 'failed',
        summary: `to be tried again for low confidence: ${payload.summary}`,
        error_type: ERROR_TYPES.lowConfidenceRetry,
        error_detail: `send it again with this concern: ${under(bounds.flag)}`,
        recoverable: true,
      },
    };
  }
  switch (decision.action) {
    case 'proceed':
    case 'flag_uncertainty':
      return { check, payload };
    case 'needs_review':
      return {
        check,
        payload: {
          ...payload,
          status: 'needs_clarification',
          summary: `held for review: ${payload.summary}`,
          error_type: ERROR_TYPES.needsReview,
          error_detail: `review needed before relying on it: ${under(bounds.flag)}`,
          recoverable: true,
        },
      };
    case 'reject_and_escalate':
      return {
        check,
        payload: {
          ...payload,
          status: 'failed',
          summary: `rejected for low confidence: ${payload.summary}`,
          error_type: ERROR_TYPES.lowConfidence,
          error_detail: `rejected and escalated: ${under(bounds.review)}`,
          recoverable: true,
        },
      };
  }
}

/**
 * The gravest of some checks, the first of equals: pass a tier's own checks before those its
 * upstream outcomes carried, and the nearest decision names itself. Null when there are none.
 */
export function gravestCheck(checks: readonly (CascadeCheck | null | undefined)[]): CascadeCheck | null {
  let gravest: CascadeCheck | null = null;
  for (const check of checks) {
    if (check && (gravest === null || CASCADE_SEVERITY[check.action] > CASCADE_SEVERITY[gravest.action])) gravest = check;
  }
  return gravest;
}
