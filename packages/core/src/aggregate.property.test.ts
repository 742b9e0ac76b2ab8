import { AGGREGATION_STRATEGIES, aggregatedOutcomeSchema, OUTCOME_STATUSES } from '@tierflow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregate } from './aggregate.js';
import { toAggregatedOutcome } from './aggregated-outcome.js';
import { CHILD_CLASS_OF, type ChildResult } from './child-result.js';

const childArb = fc.record({
  specialist: fc.constantFrom('python-lora', 'test-lora', ''),
  status: fc.constantFrom(...OUTCOME_STATUSES),
  confidence: fc.double({ min: 0, max: 1, noNaN: true }),
  error_detail: fc.option(fc.string({ maxLength: 20 })),
  recoverable: fc.option(fc.boolean()),
});

/** 1–12 children with distinct, valid message ids, in completion order. */
const childrenArb = fc.array(childArb, { minLength: 1, maxLength: 12 }).map((children): ChildResult[] => children.map((child, i) => ({ message_id: `msg-${i + 1}`, ...child })));

const strategyArb = fc.constantFrom(...AGGREGATION_STRATEGIES);

describe('aggregate: properties', () => {
  it('keeps the aggregated confidence within [0, max] of the children, and within [min, max] when nothing failed', () => {
    fc.assert(
      fc.property(strategyArb, childrenArb, (strategy, children) => {
        const confidences = children.map((child) => child.confidence);
        const { confidence, counts } = aggregate(strategy, children);
        expect(confidence).toBeGreaterThanOrEqual(counts.failed > 0 ? 0 : Math.min(...confidences));
        expect(confidence).toBeLessThanOrEqual(Math.max(...confidences));
      }),
    );
  });

  it('gives a failed aggregate confidence 0, and a short-falling one no more than the share that did not fail times their best', () => {
    fc.assert(
      fc.property(strategyArb, childrenArb, (strategy, children) => {
        const { status, confidence, counts } = aggregate(strategy, children);
        if (status === 'failed') expect(confidence).toBe(0);
        if (status === 'partial' || status === 'needs_clarification') {
          const standing = children.filter((child) => child.status !== 'cancelled' && CHILD_CLASS_OF[child.status] !== 'failed');
          const best = Math.max(0, ...standing.map((child) => child.confidence));
          const counted = counts.total - counts.cancelled;
          expect(confidence).toBeLessThanOrEqual((standing.length / counted) * best + 1e-12);
        }
      }),
    );
  });

  it('never raises the confidence of a result that fell short when one more child fails', () => {
    fc.assert(
      fc.property(strategyArb, childrenArb, fc.nat(), (strategy, children, pick) => {
        const index = pick % children.length;
        const failing = children.map((child, i) => (i === index ? { ...child, status: 'failed' as const } : child));
        const before = aggregate(strategy, children);
        const after = aggregate(strategy, failing);
        const shortOf = (status: string): boolean => status === 'partial' || status === 'failed' || status === 'needs_clarification';
        if (shortOf(before.status) && shortOf(after.status) && children[index]?.status !== 'cancelled') {
          expect(after.confidence).toBeLessThanOrEqual(before.confidence + 1e-12);
        }
      }),
    );
  });

  it('never gives all_success a success while a counted child fell short', () => {
    fc.assert(
      fc.property(childrenArb, (children) => {
        const shortfall = children.some((child) => child.status !== 'success' && child.status !== 'cancelled');
        if (shortfall) expect(aggregate('all_success', children).status).not.toBe('success');
      }),
    );
  });

  it('reports success only when a child succeeded, and failed only when none did', () => {
    fc.assert(
      fc.property(strategyArb, childrenArb, (strategy, children) => {
        const anySucceeded = children.some((child) => child.status === 'success');
        const { status } = aggregate(strategy, children);
        if (status === 'success') expect(anySucceeded).toBe(true);
        if (status === 'failed') expect(anySucceeded).toBe(false);
      }),
    );
  });

  it('has one child outcome per child, in order', () => {
    fc.assert(
      fc.property(strategyArb, childrenArb, (strategy, children) => {
        const outcomes = aggregate(strategy, children).child_outcomes;
        expect(outcomes.map((outcome) => outcome.message_id)).toEqual(children.map((child) => child.message_id));
        expect(outcomes.map((outcome) => outcome.status)).toEqual(children.map((child) => child.status));
      }),
    );
  });

  it('makes majority a success exactly when more than half the counted children succeeded, barring clarification', () => {
    fc.assert(
      fc.property(childrenArb, (children) => {
        fc.pre(children.every((child) => child.status !== 'needs_clarification'));
        const counted = children.filter((child) => child.status !== 'cancelled').length;
        const succeeded = children.filter((child) => child.status === 'success').length;
        expect(aggregate('majority', children).status === 'success').toBe(succeeded > counted / 2);
      }),
    );
  });

  it('turns every shortfall with a clarifying child into needs_clarification', () => {
    fc.assert(
      fc.property(strategyArb, childrenArb, (strategy, children) => {
        const { status } = aggregate(strategy, children);
        const asks = children.some((child) => child.status === 'needs_clarification');
        if (asks) expect(['success', 'needs_clarification']).toContain(status);
        else expect(status).not.toBe('needs_clarification');
      }),
    );
  });

  it('sets majority only on partial, and revise only with a failed majority', () => {
    fc.assert(
      fc.property(strategyArb, childrenArb, (strategy, children) => {
        const result = aggregate(strategy, children);
        expect(result.majority !== null).toBe(result.status === 'partial');
        expect(result.revise).toBe(result.majority === 'failed');
      }),
    );
  });

  it('names, under first_success, the first success as winner', () => {
    fc.assert(
      fc.property(childrenArb, (children) => {
        const result = aggregate('first_success', children);
        const winner = children.find((child) => child.status === 'success');
        expect(result.winner).toBe(winner?.message_id ?? null);
      }),
    );
  });

  it('produces a wire form that passes aggregatedOutcomeSchema', () => {
    fc.assert(
      fc.property(strategyArb, childrenArb, (strategy, children) => {
        expect(aggregatedOutcomeSchema.safeParse(toAggregatedOutcome(aggregate(strategy, children))).success).toBe(true);
      }),
    );
  });

  it('is deterministic and leaves its input alone', () => {
    fc.assert(
      fc.property(strategyArb, childrenArb, (strategy, children) => {
        const before = structuredClone(children);
        expect(aggregate(strategy, children)).toEqual(aggregate(strategy, structuredClone(children)));
        expect(children).toEqual(before);
      }),
    );
  });
});
