import type { Span } from '@opentelemetry/api';
import type { CascadeCheck } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import type { SettledRound, Step } from '../policy/handler.js';
import { delegated, delegationTo, settle } from '../testing/index.js';
import { checkUpstream, reportChecks, withCascadeCheck } from './upstream-check.js';

const parent = delegationTo('ROUTING_DISPATCHER', 'r.0-0.0-0', { task_type: 'decompose', objective: 'x' });
const step: Step = { kind: 'delegate', children: [1, 2, 3].map((i) => ({ task_type: 't', objective: `o${i}` })), strategy: 'all_success' };
const BOUNDS = { proceed: 0.8, flag: 0.5, review: 0.3 };

function round(confidences: readonly number[], carried: (CascadeCheck | undefined)[] = []): SettledRound {
  return settle(parent, 'ROUTING_DISPATCHER', delegated(step), 0, (_request, index) => ({
    status: 'success',
    summary: 'ok',
    confidence: confidences[index]!,
    ...(carried[index] ? { cascade_check: carried[index] } : {}),
  }));
}

describe('checkUpstream', () => {
  it('checks every upstream success, holds or refuses what it must, and carries the gravest check', () => {
    const original = round([0.9, 0.6, 0.2]);
    const checked = checkUpstream(original, 'ROUTING_DISPATCHER', BOUNDS);
    expect(checked.checks.map((check) => check.action)).toEqual(['proceed', 'flag_uncertainty', 'reject_and_escalate']);
    expect(checked.round.children.map((child) => child.outcome.payload.status)).toEqual(['success', 'success', 'failed']);
    expect(checked.carried).toMatchObject({ action: 'reject_and_escalate', upstream_id: 'r.0-0.0-0.0-2.out', checked_by: 'ROUTING_DISPATCHER' });
    // Work used as it came is the same child; the round keeps its number, strategy and memo.
    expect(checked.round.children.slice(0, 2)).toEqual(original.children.slice(0, 2));
    expect(checked.round.children[0]).toBe(original.children[0]);
    expect({ ...checked.round, children: [] }).toEqual({ ...original, children: [] });
  });

  it('carries a graver check an upstream outcome brought with it, ahead of its own lighter one', () => {
    const below: CascadeCheck = { action: 'flag_uncertainty', confidence: 0.55, threshold: 0.5, upstream_id: 'deep.out', checked_by: 'SPECIALIZED_FLEET' };
    expect(checkUpstream(round([0.9, 0.9, 0.9], [below]), 'ROUTING_DISPATCHER', BOUNDS).carried).toEqual(below);
  });

  it('with the check off, changes nothing and still carries what came up', () => {
    const below: CascadeCheck = { action: 'needs_review', confidence: 0.4, threshold: 0.3, upstream_id: 'deep.out', checked_by: 'ROUTING_DISPATCHER' };
    const original = round([0.1, 0.1, 0.1], [below]);
    const checked = checkUpstream(original, 'ABSTRACT_ARCHITECT', null);
    expect(checked.checks).toEqual([]);
    expect(checked.round.children).toEqual(original.children);
    expect(checked.carried).toEqual(below);
  });
});

describe('checkUpstream with per-handoff flags', () => {
  const flagged = (flags: readonly (boolean | undefined)[]): SettledRound => {
    const children = flags.map((flag, i) => ({ task_type: 't', objective: `o${i}`, ...(flag === undefined ? {} : { handoff: { cascade_check: flag } }) }));
    return settle(parent, 'ROUTING_DISPATCHER', delegated({ kind: 'delegate', children, strategy: 'all_success' }), 0, () => ({ status: 'success', summary: 'ok', confidence: 0.2 }));
  };

  it('leaves unchecked the answer of a delegation that turned the check off', () => {
    const checked = checkUpstream(flagged([false, undefined]), 'ROUTING_DISPATCHER', BOUNDS);
    expect(checked.checks.map((check) => check.upstream_id)).toEqual(['r.0-0.0-0.0-1.out']);
    expect(checked.round.children.map((child) => child.outcome.payload.status)).toEqual(['success', 'failed']);
  });

  it('checks, by the default bounds, the answer of a delegation that turned it on where the deployment has it off', () => {
    const checked = checkUpstream(flagged([true, undefined]), 'ROUTING_DISPATCHER', null);
    expect(checked.checks).toEqual([expect.objectContaining({ action: 'reject_and_escalate', threshold: 0.3, upstream_id: 'r.0-0.0-0.0-0.out' })]);
    expect(checked.round.children.map((child) => child.outcome.payload.status)).toEqual(['failed', 'success']);
  });
});

describe('reportChecks', () => {
  it('records a confidence_cascade span event per check, the gravest as an attribute, and warns of refusals', () => {
    const events: [string, unknown][] = [];
    const attributes: Record<string, unknown> = {};
    const span = { addEvent: (name: string, value: unknown) => events.push([name, value]), setAttribute: (key: string, value: unknown) => (attributes[key] = value) } as unknown as Span;
    const warnings: string[] = [];
    reportChecks(span, { info: () => undefined, warn: (message) => warnings.push(message) }, checkUpstream(round([0.9, 0.4, 0.2]), 'ROUTING_DISPATCHER', BOUNDS));
    expect(events).toHaveLength(3);
    expect(events[1]).toEqual([
      'confidence_cascade',
      {
        'tierflow.cascade.action': 'needs_review',
        'tierflow.cascade.confidence': 0.4,
        'tierflow.cascade.threshold': 0.3,
        'tierflow.cascade.upstream_id': 'r.0-0.0-0.0-1.out',
        'tierflow.cascade.checked_by': 'ROUTING_DISPATCHER',
      },
    ]);
    expect(attributes).toEqual({ 'tierflow.cascade.action': 'reject_and_escalate' });
    expect(warnings).toEqual(['upstream work held for review for its confidence', 'upstream work rejected for its confidence']);
  });
});

describe('withCascadeCheck', () => {
  const check: CascadeCheck = { action: 'flag_uncertainty', confidence: 0.6, threshold: 0.5, upstream_id: 'u.out', checked_by: 'ROUTING_DISPATCHER' };

  it('puts the check on an outcome, and leaves a delegation or an unchecked outcome alone', () => {
    const outcome: Step = { kind: 'outcome', outcome: { status: 'success', summary: 's', confidence: 0.6 } };
    expect(withCascadeCheck(outcome, check)).toEqual({ kind: 'outcome', outcome: { status: 'success', summary: 's', confidence: 0.6, cascade_check: check } });
    expect(withCascadeCheck(outcome, null)).toBe(outcome);
    expect(withCascadeCheck(step, check)).toBe(step);
  });
});
