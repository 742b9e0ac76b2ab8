import { aggregatedOutcomeSchema, type AggregationStrategy, type OutcomeStatus } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { aggregate, type Aggregation } from './aggregate.js';
import { toAggregatedOutcome } from './aggregated-outcome.js';
import type { ChildResult } from './child-result.js';

type Kid = readonly [OutcomeStatus, number, Partial<ChildResult>?];

/** Children msg-1, msg-2, … handled by spec-1, spec-2, …, in completion order. */
function kids(...entries: readonly Kid[]): ChildResult[] {
  return entries.map(([status, confidence, extra], i) => ({
    message_id: `msg-${i + 1}`,
    specialist: `spec-${i + 1}`,
    status,
    confidence,
    ...extra,
  }));
}

const close = (value: number): unknown => expect.closeTo(value, 10);

describe('aggregate: status, majority, revise and confidence', () => {
  it.each<[string, AggregationStrategy, ChildResult[], Partial<Record<keyof Aggregation, unknown>>]>([
    // all_success
    ['all succeed', 'all_success', kids(['success', 0.9], ['success', 0.7]), { status: 'success', majority: null, revise: false, confidence: close(0.8) }],
    ['majority succeeded', 'all_success', kids(['success', 0.9], ['success', 0.8], ['timeout', 0.4]), { status: 'partial', majority: 'succeeded', revise: false, confidence: close(1.7 / 3) }],
    ['majority failed', 'all_success', kids(['success', 0.9], ['failed', 0.3], ['failed', 0.3]), { status: 'partial', majority: 'failed', revise: true, confidence: close(0.3) }],
    ['a tie is no majority', 'all_success', kids(['success', 0.8], ['failed', 0.4]), { status: 'partial', majority: 'failed', revise: true, confidence: close(0.4) }],
    ['success and partial tie', 'all_success', kids(['success', 0.8], ['partial', 0.6]), { status: 'partial', majority: 'failed', revise: true, confidence: close(0.7) }],
    ['all failed', 'all_success', kids(['failed', 0.2], ['timeout', 0.1], ['throttled', 0.3]), { status: 'failed', majority: null, revise: false, confidence: 0 }],
    ['partial-only children', 'all_success', kids(['partial', 0.6], ['partial', 0.4]), { status: 'partial', majority: 'failed', revise: true, confidence: close(0.5) }],
    ['all cancelled', 'all_success', kids(['cancelled', 0.5], ['cancelled', 0.3]), { status: 'cancelled', majority: null, revise: false, confidence: close(0.4) }],
    ['cancelled not counted', 'all_success', kids(['success', 0.9], ['cancelled', 0.1]), { status: 'success', confidence: close(0.9) }],
    ['throttled counts as failed', 'all_success', kids(['success', 0.9], ['success', 0.9], ['throttled', 0.6]), { status: 'partial', majority: 'succeeded', confidence: close(0.6) }],
    [
      'clarification beside a success',
      'all_success',
      kids(['success', 0.9], ['needs_clarification', 0.5, { error_detail: 'Return -1 or raise?' }]),
      { status: 'needs_clarification', majority: null, revise: false, questions: ['Return -1 or raise?'], confidence: close(0.7) },
    ],
    ['single child succeeds', 'all_success', kids(['success', 0.75]), { status: 'success', confidence: 0.75 }],
    ['single child fails', 'all_success', kids(['failed', 0.25]), { status: 'failed', confidence: 0 }],
    // any_success
    ['all succeed', 'any_success', kids(['success', 0.9], ['success', 0.5]), { status: 'success', confidence: close(0.7) }],
    ['one success among failures', 'any_success', kids(['failed', 0.2], ['success', 0.8], ['timeout', 0.4]), { status: 'success', majority: null, confidence: close(0.8) }],
    ['all failed', 'any_success', kids(['failed', 0.2], ['throttled', 0.4]), { status: 'failed', confidence: 0 }],
    ['progress without success', 'any_success', kids(['partial', 0.6], ['failed', 0.2]), { status: 'partial', majority: 'failed', revise: true, confidence: close(0.3) }],
    [
      'clarification without success',
      'any_success',
      kids(['failed', 0.2], ['needs_clarification', 0.6, { error_detail: 'Which file?' }]),
      { status: 'needs_clarification', questions: ['Which file?'], confidence: close(0.3) },
    ],
    ['clarification beside a success', 'any_success', kids(['needs_clarification', 0.6, { error_detail: 'Which file?' }], ['success', 0.9]), { status: 'success', questions: [], confidence: 0.9 }],
    ['all cancelled', 'any_success', kids(['cancelled', 0.2]), { status: 'cancelled', confidence: 0.2 }],
    ['single child asks', 'any_success', kids(['needs_clarification', 0.4, { error_detail: 'Which one?' }]), { status: 'needs_clarification', questions: ['Which one?'] }],
    // majority
    ['two of three', 'majority', kids(['success', 0.9], ['success', 0.7], ['failed', 0.1]), { status: 'success', majority: null, confidence: close(0.8) }],
    ['a tie is no majority', 'majority', kids(['success', 0.9], ['success', 0.7], ['failed', 0.1], ['timeout', 0.3]), { status: 'partial', majority: 'failed', revise: true, confidence: close(0.4) }],
    ['one of three', 'majority', kids(['success', 0.9], ['failed', 0.3], ['timeout', 0.3]), { status: 'partial', majority: 'failed', revise: true, confidence: close(0.3) }],
    ['progress only', 'majority', kids(['partial', 0.5], ['failed', 0.3], ['failed', 0.1]), { status: 'partial', majority: 'failed', revise: true, confidence: close(0.5 / 3) }],
    ['all failed', 'majority', kids(['failed', 0.3], ['timeout', 0.1]), { status: 'failed', confidence: 0 }],
    ['cancelled not counted', 'majority', kids(['success', 0.6], ['success', 0.8], ['cancelled', 0], ['cancelled', 0], ['cancelled', 0]), { status: 'success', confidence: close(0.7) }],
    ['clarification, no majority', 'majority', kids(['success', 0.9], ['needs_clarification', 0.3], ['failed', 0.3]), { status: 'needs_clarification', questions: [], confidence: close(0.4) }],
    [
      'clarification, majority',
      'majority',
      kids(['success', 0.9], ['success', 0.7], ['needs_clarification', 0.3, { error_detail: 'Q?' }]),
      { status: 'success', questions: [], confidence: close(0.8) },
    ],
    ['single child', 'majority', kids(['success', 0.6]), { status: 'success', confidence: 0.6 }],
    // first_success
    ['winner not first in list', 'first_success', kids(['failed', 0.2], ['success', 0.7], ['success', 0.9], ['cancelled', 0.5]), { status: 'success', winner: 'msg-2', confidence: 0.7 }],
    ['winner first, losers cancelled', 'first_success', kids(['success', 0.6], ['cancelled', 0.1], ['cancelled', 0.2]), { status: 'success', winner: 'msg-1', confidence: 0.6 }],
    ['no winner, all failed', 'first_success', kids(['failed', 0.2], ['timeout', 0.4]), { status: 'failed', winner: null, confidence: 0 }],
    ['no winner, progress', 'first_success', kids(['partial', 0.6], ['failed', 0.2]), { status: 'partial', majority: 'failed', revise: true, winner: null, confidence: close(0.3) }],
    [
      'no winner, clarification',
      'first_success',
      kids(['cancelled', 0.1], ['needs_clarification', 0.5, { error_detail: 'Q?' }]),
      { status: 'needs_clarification', questions: ['Q?'], confidence: 0.5 },
    ],
    ['all cancelled', 'first_success', kids(['cancelled', 0.4], ['cancelled', 0.6]), { status: 'cancelled', winner: null, confidence: close(0.5) }],
    ['single child', 'first_success', kids(['success', 0.8]), { status: 'success', winner: 'msg-1' }],
    // blocked: waits on something outside the run, never revised around
    [
      'blocked beside a success',
      'all_success',
      kids(['success', 0.9], ['blocked', 0.5, { error_detail: 'no API key' }]),
      { status: 'blocked', majority: null, revise: false, blockers: ['no API key'], confidence: close(0.7) },
    ],
    ['blocked beside failures', 'all_success', kids(['failed', 0.2], ['blocked', 0.6]), { status: 'blocked', revise: false, blockers: [], confidence: close(0.3) }],
    ['blocked beside a success', 'any_success', kids(['blocked', 0.5], ['success', 0.9]), { status: 'success', blockers: [], confidence: 0.9 }],
    ['blocked, majority', 'majority', kids(['success', 0.9], ['success', 0.7], ['blocked', 0.3]), { status: 'success', confidence: close(0.8) }],
    ['blocked and cancelled', 'first_success', kids(['cancelled', 0.1], ['blocked', 0.4, { error_detail: 'w' }]), { status: 'blocked', blockers: ['w'] }],
    [
      'a question goes before a blocker',
      'all_success',
      kids(['blocked', 0.5, { error_detail: 'no key' }], ['needs_clarification', 0.5, { error_detail: 'Which?' }]),
      { status: 'needs_clarification', questions: ['Which?'], blockers: [] },
    ],
  ])('%s (%s)', (_label, strategy, children, expected) => {
    expect(aggregate(strategy, children)).toMatchObject(expected);
  });
});

describe('aggregate: confidence counts failed children at 0', () => {
  it('gives two failures out of three, each reported at 0.90, a third of the success’s confidence', () => {
    const result = aggregate('all_success', kids(['success', 0.85], ['failed', 0.9], ['failed', 0.9]));
    expect(result.status).toBe('partial');
    expect(result.confidence).toBeCloseTo(0.85 / 3, 12);
  });

  it('gives a failed aggregate 0, however sure its children were', () => {
    expect(aggregate('any_success', kids(['failed', 1], ['timeout', 1], ['throttled', 1])).confidence).toBe(0);
  });

  it('takes a question and progress at their own confidence: neither has failed', () => {
    expect(aggregate('all_success', kids(['partial', 0.6], ['needs_clarification', 0.8], ['failed', 0.9])).confidence).toBeCloseTo(1.4 / 3, 12);
  });

  it('leaves cancelled children out of the count', () => {
    expect(aggregate('all_success', kids(['success', 0.9], ['failed', 0.9], ['cancelled', 0.1])).confidence).toBeCloseTo(0.45, 12);
  });

  it('leaves a success’s confidence to the work it carries', () => {
    expect(aggregate('majority', kids(['success', 0.9], ['success', 0.7], ['failed', 0.9])).confidence).toBeCloseTo(0.8, 12);
  });
});

describe('aggregate: recoverable', () => {
  it.each<[string, AggregationStrategy, ChildResult[], boolean | null]>([
    ['success', 'all_success', kids(['success', 1]), null],
    ['all cancelled', 'all_success', kids(['cancelled', 1]), null],
    ['partial', 'all_success', kids(['success', 1], ['failed', 0, { recoverable: false }]), true],
    ['needs clarification', 'any_success', kids(['needs_clarification', 0.5, { recoverable: false }]), true],
    ['blocked', 'all_success', kids(['blocked', 0.5, { recoverable: false }]), true],
    ['failed, flags absent', 'any_success', kids(['failed', 0], ['timeout', 0]), true],
    ['failed, every child unrecoverable', 'any_success', kids(['failed', 0, { recoverable: false }], ['timeout', 0, { recoverable: false }]), false],
    ['failed, one child recoverable', 'majority', kids(['failed', 0, { recoverable: false }], ['timeout', 0, { recoverable: true }]), true],
    ['failed, a throttled child is always recoverable', 'majority', kids(['failed', 0, { recoverable: false }], ['throttled', 0, { recoverable: false }]), true],
    ['failed, cancelled children do not matter', 'first_success', kids(['failed', 0, { recoverable: false }], ['cancelled', 0]), false],
  ])('%s', (_label, strategy, children, recoverable) => {
    expect(aggregate(strategy, children).recoverable).toBe(recoverable);
  });
});

describe('aggregate: summary and error_detail', () => {
  it.each<[string, AggregationStrategy, ChildResult[], string, string | null]>([
    [
      "the protocol's example",
      'all_success',
      [
        { message_id: 'msg-002', specialist: 'python-lora', status: 'success', confidence: 0.9 },
        { message_id: 'msg-003', specialist: 'python-lora', status: 'success', confidence: 0.8 },
        { message_id: 'msg-004', specialist: 'test-lora', status: 'timeout', confidence: 0.2, error_detail: 'timeout after 30000ms' },
      ],
      '2/3 subtasks succeeded (all_success); majority succeeded',
      'test-lora failed: timeout after 30000ms',
    ],
    [
      'all failed',
      'all_success',
      kids(['failed', 0.1, { error_detail: 'syntax error' }], ['timeout', 0], ['failed', 0, { error_type: 'crash' }]),
      '0/3 subtasks succeeded (all_success): all failed',
      'spec-1 failed: syntax error; spec-2 failed: timeout; spec-3 failed: crash',
    ],
    [
      'majority failed',
      'majority',
      kids(['success', 1], ['partial', 0.5, { error_detail: 'half done' }], ['failed', 0]),
      '1/3 subtasks succeeded (majority), 1 partial; majority failed: revise the strategy',
      'spec-2 made partial progress: half done; spec-3 failed',
    ],
    ['success', 'any_success', kids(['failed', 0], ['success', 1], ['cancelled', 0]), '1/2 subtasks succeeded (any_success), 1 cancelled', null],
    ['winner', 'first_success', kids(['success', 1], ['cancelled', 0]), '1/1 subtask succeeded (first_success), 1 cancelled; winner msg-1 (spec-1)', null],
    ['winner without a specialist', 'first_success', kids(['success', 1, { specialist: '' }]), '1/1 subtask succeeded (first_success); winner msg-1 (msg-1)', null],
    [
      'clarification',
      'all_success',
      kids(['success', 1], ['needs_clarification', 0.5, { error_detail: ' Which file? ' }], ['needs_clarification', 0.5]),
      '1/3 subtasks succeeded (all_success): needs clarification (1 question)',
      'spec-2 asks: Which file?; spec-3 asks for clarification',
    ],
    [
      'one cancelled',
      'majority',
      kids(['cancelled', 0.5, { error_detail: 'stopped by the Architect' }]),
      'the only subtask was cancelled (majority)',
      'spec-1 was cancelled: stopped by the Architect',
    ],
    ['all cancelled', 'any_success', kids(['cancelled', 0.5], ['cancelled', 0.5]), 'all 2 subtasks were cancelled (any_success)', 'spec-1 was cancelled; spec-2 was cancelled'],
  ])('%s', (_label, strategy, children, summary, errorDetail) => {
    const result = aggregate(strategy, children);
    expect(result.summary).toBe(summary);
    expect(result.error_detail).toBe(errorDetail);
  });
});

describe('aggregate: counts, child outcomes and the wire form', () => {
  const children = kids(['success', 0.9], ['partial', 0.5], ['timeout', 0.1], ['needs_clarification', 0.4], ['cancelled', 0.2], ['throttled', 0.3]);

  it('counts every class, cancelled ones apart', () => {
    expect(aggregate('all_success', children).counts).toEqual({ total: 6, succeeded: 1, progressed: 1, failed: 2, asks: 1, waits: 0, cancelled: 1 });
  });

  it('reports one child outcome per child, in input order, without error fields', () => {
    const result = aggregate('any_success', children);
    expect(result.child_outcomes).toEqual(children.map(({ message_id, status, confidence, specialist }) => ({ message_id, status, confidence, specialist })));
  });

  it.each<AggregationStrategy>(['all_success', 'any_success', 'majority', 'first_success'])('toAggregatedOutcome passes aggregatedOutcomeSchema (%s)', (strategy) => {
    const wire = toAggregatedOutcome(aggregate(strategy, children));
    expect(aggregatedOutcomeSchema.parse(wire)).toEqual(wire);
    expect(wire).toMatchObject({ strategy_used: strategy, aggregated_status: aggregate(strategy, children).status });
  });
});

describe('aggregate: bad input', () => {
  it.each<[string, ChildResult[], RegExp]>([
    ['no children', [], /at least one child/],
    ['confidence above 1', kids(['success', 1.5]), /msg-1.*within \[0, 1\]/],
    ['negative confidence', kids(['success', 0.5], ['failed', -0.1]), /child 1 \(msg-2\)/],
    ['NaN confidence', kids(['success', Number.NaN]), /got NaN/],
  ])('throws a RangeError for %s', (_label, children, message) => {
    expect(() => aggregate('all_success', children)).toThrow(RangeError);
    expect(() => aggregate('all_success', children)).toThrow(message);
  });
});
