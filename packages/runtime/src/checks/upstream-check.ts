import type { Span } from '@opentelemetry/api';
import { cascadeThresholdsFor, gateUpstream, gravestCheck, type CascadeThresholds } from '@tierflow/core';
import { DEFAULT_ERROR_POLICY, resolveErrorPolicy, type CascadeCheck, type ResolvedErrorPolicy, type TierName } from '@tierflow/protocol';
import type { SettledRound, Step, TierLogger } from '../policy/handler.js';

/** A settled round after the cascade check: what the policy reads, and what the outcome will carry. */
export interface CheckedRound {
  /** The children as the policy should rely on them: held for review, or refused, where the check said so. */
  readonly round: SettledRound;
  /** This tier's own checks, one per child that reported success. */
  readonly checks: readonly CascadeCheck[];
  /** The gravest check behind this tier's answer: its own, or one its children's outcomes carried up. */
  readonly carried: CascadeCheck | null;
}

/**
 * The confidence cascade check (docs/protocol.md#confidence-cascade) at a parent's aggregate
 * step: every upstream outcome is checked before the policy reads it (the decision is the core's,
 * pure). With `thresholds` null the check is off, and only what the children carried travels on;
 * a child's delegation may turn it off or on for its own answer (`handoff.cascade_check`).
 */
export function checkUpstream(round: SettledRound, tier: TierName, thresholds: CascadeThresholds | null, policy: ResolvedErrorPolicy = DEFAULT_ERROR_POLICY): CheckedRound {
  const checks: CascadeCheck[] = [];
  const children = round.children.map((child) => {
    const bounds = cascadeThresholdsFor(thresholds, child.request.handoff?.cascade_check);
    if (bounds === null) return child;
    // Each child by the policy its own delegation carried (docs/protocol.md#error-policies).
    const onLow = resolveErrorPolicy(child.request.error_policy, policy).on_low_confidence;
    const gated = gateUpstream({ id: child.outcome.id, payload: child.outcome.payload }, tier, bounds, onLow);
    if (gated.check) checks.push(gated.check);
    return gated.payload === child.outcome.payload ? child : { ...child, outcome: { ...child.outcome, payload: gated.payload } };
  });
  const carried = gravestCheck([...checks, ...round.children.map((child) => child.outcome.payload.cascade_check)]);
  return { round: { ...round, children }, checks, carried };
}

/** A span event `confidence_cascade` per check, with its figures; a warning for work held or refused. */
export function reportChecks(span: Span, log: TierLogger, checked: CheckedRound): void {
  for (const check of checked.checks) {
    span.addEvent('confidence_cascade', {
      'tierflow.cascade.action': check.action,
      'tierflow.cascade.confidence': check.confidence,
      'tierflow.cascade.threshold': check.threshold,
      'tierflow.cascade.upstream_id': check.upstream_id,
      'tierflow.cascade.checked_by': check.checked_by,
    });
    if (check.action === 'needs_review' || check.action === 'reject_and_escalate') {
      log.warn(`upstream work ${check.action === 'needs_review' ? 'held for review' : 'rejected'} for its confidence`, { ...check });
    }
  }
  if (checked.carried) span.setAttribute('tierflow.cascade.action', checked.carried.action);
}

/** The policy's step, its outcome carrying the gravest check behind it. */
export function withCascadeCheck(step: Step, carried: CascadeCheck | null): Step {
  if (step.kind !== 'outcome' || carried === null) return step;
  return { kind: 'outcome', outcome: { ...step.outcome, cascade_check: carried } };
}
