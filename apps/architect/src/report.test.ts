import { outcomePayloadSchema, type OutcomePayload } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import type { ArchitectMemo } from './architect-memo.js';
import { childOutcomesOf } from './child-outcomes.js';
import { mapToPlan } from './decide.js';
import { dispatcherReply, type Row } from './dispatcher-reply.js';
import { passUp } from '@tierflow/runtime/policy';
import { forwardReport, reaggregatedReport } from './report.js';

const outcomeOf = (reply: ReturnType<typeof dispatcherReply>): OutcomePayload => outcomePayloadSchema.parse({ ...reply, execution_time_ms: 40 });

const memo: ArchitectMemo = {
  revisions: 1,
  plan: { strategy: 'all_success', subtasks: [{ objective: 'a' }, { objective: 'b' }, { objective: 'c' }] },
  delegated: [1, 3],
  kept: [{ message_id: 'd.0-1', specialist: 's2', status: 'success', confidence: 0.9, subtask_index: 2 }],
  kept_artifacts: [{ artifact_type: 'code', content_ref: null, inline_content: 'by d.0-1', metadata: {} }],
  outer: [],
  learning: [],
  learning_dropped: 0,
  surprises: [],
};

describe('passUp and forwardReport', () => {
  const outcome = outcomeOf(
    dispatcherReply('all_success', [
      ['success', 0.9],
      ['failed', 0.2],
      ['failed', 0.1],
    ]),
  );

  it('passes every field but the timing up unchanged', () => {
    const { execution_time_ms: _dropped, ...rest } = outcome;
    expect(passUp(outcome)).toEqual(rest);
  });

  it('adds the revisions to resources_used', () => {
    expect(forwardReport(outcome, 1)).toEqual({ ...passUp(outcome), resources_used: { parallel_tasks: 3, rounds: 1, revisions: 1 } });
  });
});

describe('reaggregatedReport', () => {
  it.each<[string, Row[], object]>([
    [
      'the failed subtasks succeed on revision: success overall',
      [
        ['success', 0.7],
        ['success', 0.8],
      ],
      { status: 'success', confidence: expect.closeTo(0.8, 10) as unknown, summary: '3/3 subtasks succeeded (all_success) (after 1 revision)' },
    ],
    [
      'one still fails: partial, majority succeeded',
      [
        ['success', 0.7],
        ['failed', 0.3],
      ],
      { status: 'partial', error_type: 'partial_completion', error_detail: 's2 failed: subtask 2 broke', recoverable: true },
    ],
    [
      'both still fail: partial, majority failed',
      [
        ['failed', 0.1],
        ['failed', 0.3],
      ],
      { status: 'partial', error_type: 'majority_failed', recoverable: true },
    ],
  ])('%s', (_name, rows, expected) => {
    const outcome = outcomeOf(dispatcherReply('all_success', rows, 'd.1'));
    const report = reaggregatedReport({ outcome, current: mapToPlan(childOutcomesOf(outcome.artifacts), memo.delegated), memo, dispatcherId: 'a.1-0' });
    expect(report.outcome).toMatchObject({ ...expected, resources_used: { revisions: 1 } });
    expect(outcomePayloadSchema.safeParse({ ...report.outcome, execution_time_ms: 1 }).success).toBe(true);
  });

  it('summarises the whole objective first, then the kept work, then this round’s', () => {
    const outcome = outcomeOf(
      dispatcherReply(
        'all_success',
        [
          ['success', 0.7],
          ['success', 0.8],
        ],
        'd.1',
      ),
    );
    const { outcome: report } = reaggregatedReport({ outcome, current: mapToPlan(childOutcomesOf(outcome.artifacts), memo.delegated), memo, dispatcherId: 'a.1-0' });
    const parsed = outcomePayloadSchema.parse({ ...report, execution_time_ms: 1 });
    expect(parsed.artifacts.map((artifact) => artifact.inline_content)).toEqual([JSON.stringify({ strategy: 'all_success', succeeded: 3, failed: 0 }), 'by d.0-1', 'by d.1-0', 'by d.1-1']);
    expect(parsed.artifacts[0]?.metadata.child_outcomes).toEqual([
      { id: 'd.0-1', status: 'success', specialist: 's2', confidence: 0.9, subtask_index: 2 },
      { id: 'd.1-0', status: 'success', specialist: 's1', confidence: 0.7, subtask_index: 1 },
      { id: 'd.1-1', status: 'success', specialist: 's2', confidence: 0.8, subtask_index: 3 },
    ]);
  });

  it('without per-subtask outcomes, each delegated subtask takes the outcome’s status', () => {
    const outcome = outcomePayloadSchema.parse({
      status: 'timeout',
      summary: 'no answer',
      confidence: 0,
      execution_time_ms: 60_000,
      error_type: 'timeout',
      error_detail: 'after 60000ms',
      recoverable: true,
    });
    const { outcome: report, aggregation } = reaggregatedReport({ outcome, current: null, memo, dispatcherId: 'a.1-0' });
    expect(aggregation.counts).toMatchObject({ succeeded: 1, failed: 2 });
    expect(report).toMatchObject({ status: 'partial', error_type: 'majority_failed', error_detail: 'after 60000ms' });
  });
});

describe('reaggregatedReport after a planner’s new plan', () => {
  // The first plan, all_success over a, b, c: b succeeded and is kept; a planner's plan of two
  // alternatives (first_success) replaced a and c.
  const replaced: ArchitectMemo = {
    ...memo,
    revisions: 1,
    plan: { strategy: 'first_success', subtasks: [{ objective: 'a and c, one way' }, { objective: 'a and c, another way' }] },
    delegated: [1, 2],
    kept: [],
    kept_artifacts: [{ artifact_type: 'code', content_ref: null, inline_content: 'by d.0-1', metadata: {} }],
    outer: [{ plan: memo.plan, kept: memo.kept, replaced: [1, 3] }],
  };
  const reportOf = (rows: Row[], subject: ArchitectMemo = replaced) => {
    const outcome = outcomeOf(dispatcherReply('first_success', rows, 'd.1'));
    return reaggregatedReport({ outcome, current: mapToPlan(childOutcomesOf(outcome.artifacts), subject.delegated), memo: subject, dispatcherId: 'a.1-0' });
  };

  it('lets the new plan’s aggregate stand for each subtask it replaced, under the first plan’s strategy', () => {
    const { outcome, aggregation } = reportOf([
      ['failed', 0.2],
      ['success', 0.6],
    ]);
    expect(aggregation).toMatchObject({ status: 'success', counts: { succeeded: 3 } });
    expect(outcome.artifacts?.[0]?.metadata).toMatchObject({
      child_outcomes: [
        { id: 'd.0-1', status: 'success', subtask_index: 2 },
        { id: 'a.1-0', specialist: '', status: 'success', confidence: 0.6, subtask_index: 1 },
        { id: 'a.1-0', specialist: '', status: 'success', confidence: 0.6, subtask_index: 3 },
      ],
      replans: 1,
    });
    expect((outcome.artifacts ?? []).slice(1).map((artifact) => artifact.inline_content)).toEqual(['by d.0-1', 'by d.1-1']);
  });

  it('counts a new plan that failed as a failure of every subtask it replaced: one of the first plan’s three succeeded', () => {
    const { outcome } = reportOf([
      ['failed', 0.2],
      ['failed', 0.1],
    ]);
    expect(outcome).toMatchObject({ status: 'partial', error_type: 'majority_failed', resources_used: { revisions: 1 } });
  });

  it('nests: a plan that replaced part of a plan that replaced part of the first', () => {
    const deeper: ArchitectMemo = {
      ...replaced,
      revisions: 2,
      plan: { strategy: 'all_success', subtasks: [{ objective: 'a and c, split' }] },
      delegated: [1],
      outer: [...replaced.outer, { plan: replaced.plan, kept: [], replaced: [1, 2] }],
    };
    expect(reportOf([['success', 0.9]], deeper).aggregation).toMatchObject({ status: 'success', counts: { succeeded: 3 } });
    expect(reportOf([['failed', 0.9]], deeper).outcome).toMatchObject({ status: 'partial', error_type: 'majority_failed' });
  });
});
