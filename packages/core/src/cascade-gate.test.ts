import { outcomePayloadSchema, type CascadeCheck, type OutcomePayload } from '@tierflow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gateUpstream, gravestCheck } from './cascade-gate.js';
import { CASCADE_SEVERITY } from './confidence-cascade.js';

const payload = (status: OutcomePayload['status'], confidence: number): OutcomePayload =>
  outcomePayloadSchema.parse({
    status,
    summary: 'did it',
    confidence,
    execution_time_ms: 5,
    ...(status === 'success' ? {} : { error_type: 'x', error_detail: 'y', recoverable: true }),
  });
const gate = (status: OutcomePayload['status'], confidence: number) => gateUpstream({ id: 'r.0-0.out', payload: payload(status, confidence) }, 'ROUTING_DISPATCHER');

describe('gateUpstream', () => {
  it('uses confident and uncertain work as it came, recording the check', () => {
    for (const [confidence, action, threshold] of [
      [0.9, 'proceed', 0.8],
      [0.6, 'flag_uncertainty', 0.5],
    ] as const) {
      const gated = gate('success', confidence);
      expect(gated.payload).toEqual(payload('success', confidence));
      expect(gated.check).toEqual({ action, confidence, threshold, upstream_id: 'r.0-0.out', checked_by: 'ROUTING_DISPATCHER' });
    }
  });

  it('holds doubtful work for review as a clarification, so it flows up instead of being used', () => {
    const gated = gate('success', 0.4);
    expect(gated.check).toMatchObject({ action: 'needs_review', threshold: 0.3 });
    expect(gated.payload).toMatchObject({
      status: 'needs_clarification',
      summary: 'held for review: did it',
      error_type: 'needs_review',
      error_detail: 'review needed before relying on it: confidence 0.40 of r.0-0.out is under 0.5',
      recoverable: true,
    });
    expect(outcomePayloadSchema.safeParse(gated.payload).success).toBe(true);
  });

  it('refuses untrustworthy work as a recoverable failure, so its owner may revise', () => {
    const gated = gate('success', 0.1);
    expect(gated.check).toMatchObject({ action: 'reject_and_escalate', threshold: 0.3 });
    expect(gated.payload).toMatchObject({
      status: 'failed',
      error_type: 'low_confidence',
      error_detail: 'rejected and escalated: confidence 0.10 of r.0-0.out is under 0.3',
      recoverable: true,
    });
  });

  it('checks only work offered as done: partial, failed and the rest already say they fell short', () => {
    for (const status of ['partial', 'failed', 'needs_clarification', 'timeout', 'cancelled', 'blocked', 'throttled'] as const) {
      expect(gate(status, 0.1)).toEqual({ check: null, payload: payload(status, 0.1) });
    }
  });

  it('follows the thresholds it is given', () => {
    const gated = gateUpstream({ id: 'u', payload: payload('success', 0.85) }, 'ABSTRACT_ARCHITECT', { proceed: 0.95, flag: 0.9, review: 0.6 });
    expect(gated.check).toMatchObject({ action: 'needs_review', threshold: 0.6, checked_by: 'ABSTRACT_ARCHITECT' });
    expect(gated.payload.error_detail).toContain('is under 0.9');
  });

  it('never lets lower confidence come off lighter, and never turns a failure into work', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const severity = (confidence: number) => CASCADE_SEVERITY[gate('success', confidence).check!.action];
        expect(severity(low)).toBeGreaterThanOrEqual(severity(high));
        expect(gate('failed', high).payload.status).toBe('failed');
      }),
    );
  });
});

describe('gateUpstream under an error policy', () => {
  const under = (confidence: number, policy: 'flag_and_continue' | 'retry' | 'escalate') =>
    gateUpstream({ id: 'r.0-0.out', payload: payload('success', confidence) }, 'ROUTING_DISPATCHER', undefined, policy);

  it('flag_and_continue: work under the flag bound goes on as it came, flagged', () => {
    for (const confidence of [0.4, 0.1]) {
      const gated = under(confidence, 'flag_and_continue');
      expect(gated.payload).toEqual(payload('success', confidence));
      expect(gated.check?.action).toBe('flag_uncertainty');
    }
  });

  it('retry: work under the flag bound fails, recoverable, as low_confidence_retry, for its sender to send once more', () => {
    for (const [confidence, action] of [
      [0.4, 'needs_review'],
      [0.1, 'reject_and_escalate'],
    ] as const) {
      const gated = under(confidence, 'retry');
      expect(gated.payload).toMatchObject({ status: 'failed', error_type: 'low_confidence_retry', recoverable: true });
      expect(gated.payload.error_detail).toBe(`send it again with this concern: confidence ${confidence.toFixed(2)} of r.0-0.out is under 0.5`);
      expect(gated.check?.action).toBe(action);
    }
  });

  it('leaves work at or over the flag bound alone, whatever the policy', () => {
    for (const policy of ['flag_and_continue', 'retry', 'escalate'] as const) expect(under(0.6, policy).payload.status).toBe('success');
  });

  it('escalate is the cascade as it was', () => {
    expect(under(0.4, 'escalate')).toEqual(gate('success', 0.4));
    expect(under(0.1, 'escalate')).toEqual(gate('success', 0.1));
  });
});

describe('gravestCheck', () => {
  const check = (action: CascadeCheck['action'], checked_by: CascadeCheck['checked_by'] = 'ROUTING_DISPATCHER'): CascadeCheck => ({
    action,
    confidence: 0.5,
    threshold: 0.5,
    upstream_id: 'u',
    checked_by,
  });

  it('picks the gravest, the first of equals, and null for none', () => {
    expect(gravestCheck([])).toBeNull();
    expect(gravestCheck([null, undefined])).toBeNull();
    expect(gravestCheck([check('proceed'), check('needs_review'), check('flag_uncertainty')])).toEqual(check('needs_review'));
    expect(gravestCheck([check('flag_uncertainty', 'ABSTRACT_ARCHITECT'), check('flag_uncertainty')])).toEqual(check('flag_uncertainty', 'ABSTRACT_ARCHITECT'));
    expect(gravestCheck([check('proceed', 'PROGRESS_MONITOR'), undefined, check('reject_and_escalate')])).toEqual(check('reject_and_escalate'));
  });
});
