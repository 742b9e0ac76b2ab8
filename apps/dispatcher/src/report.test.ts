import { aggregatedOutcomeSchema, outcomePayloadSchema, type AggregationStrategy, type ArtifactInput, type Artifact } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import type { DispatchMemo, SubtaskResult } from './dispatch-memo.js';
import { CHILD_SUMMARY_CHARS, dispatchReport } from './report.js';

const code: Artifact = { artifact_type: 'code', content_ref: null, inline_content: 'def f(): pass', metadata: {} };

function result(index: number, status: SubtaskResult['status'], confidence: number, extra: Partial<SubtaskResult> = {}): SubtaskResult {
  return {
    message_id: `r.0-${index - 1}`,
    specialist: `s${index}`,
    status,
    confidence,
    reported_confidence: null,
    error_type: status === 'success' ? null : 'boom',
    error_detail: status === 'success' ? null : `broke ${index}`,
    recoverable: status === 'success' ? null : true,
    artifacts: status === 'success' ? [{ ...code, metadata: { index } }] : [],
    summary: status,
    evidence_grade: null,
    surprise: null,
    ...extra,
  };
}

/** A memo whose subtasks completed in the order given. */
function memo(strategy: AggregationStrategy, ...results: SubtaskResult[]): DispatchMemo {
  return {
    strategy,
    subtasks: results.map((res, i) => ({ index: i + 1, specialist: res.specialist, alternates: [], result: res, throttles: 0, deadline: null, concern: null, routing: null })),
    completion: results.map((_, i) => i + 1),
    plan: null,
    learning: [],
    surprises: [],
  };
}

const input = { rounds: 1, taskGraphRef: 'beads:routing/r/task-graph' };

describe('dispatchReport: status and error fields', () => {
  it.each<[string, DispatchMemo, object]>([
    ['all succeed', memo('all_success', result(1, 'success', 0.9), result(2, 'success', 0.7)), { status: 'success', confidence: 0.8 }],
    [
      'majority succeeded',
      memo('all_success', result(1, 'success', 0.9), result(2, 'success', 0.9), result(3, 'timeout', 0.3)),
      { status: 'partial', error_type: 'partial_completion', error_detail: 's3 failed: broke 3', recoverable: true },
    ],
    [
      'majority failed',
      memo('all_success', result(1, 'success', 0.9), result(2, 'failed', 0.3), result(3, 'failed', 0.3)),
      { status: 'partial', error_type: 'majority_failed', error_detail: 's2 failed: broke 2; s3 failed: broke 3', recoverable: true },
    ],
    ['all failed', memo('all_success', result(1, 'failed', 0.1), result(2, 'failed', 0.3, { recoverable: false })), { status: 'failed', error_type: 'all_failed', recoverable: true }],
    ['all failed for good', memo('any_success', result(1, 'failed', 0.1, { recoverable: false })), { status: 'failed', error_type: 'all_failed', recoverable: false }],
    [
      'a clarification',
      memo('all_success', result(1, 'needs_clarification', 0.5, { error_detail: 'Return -1?' }), result(2, 'needs_clarification', 0.5, { error_detail: 'Or raise?' })),
      { status: 'needs_clarification', error_type: 'ambiguous_request', error_detail: 'Return -1? | Or raise?', recoverable: true },
    ],
    [
      'blocked beside a success',
      memo('all_success', result(1, 'success', 0.9), result(2, 'blocked', 0.5, { error_detail: 'Waiting for the API key' })),
      { status: 'blocked', error_type: 'blocked', error_detail: 'Waiting for the API key', recoverable: true },
    ],
    ['everything cancelled', memo('all_success', result(1, 'cancelled', 0.2)), { status: 'cancelled', error_type: 'cancelled', recoverable: null }],
  ])('%s', (_name, subject, expected) => {
    const { outcome } = dispatchReport(subject, input);
    expect(outcome).toMatchObject(expected);
    if (outcome.status === 'success') for (const field of ['error_type', 'error_detail', 'recoverable']) expect(outcome).not.toHaveProperty(field);
    expect(outcomePayloadSchema.safeParse({ ...outcome, execution_time_ms: 1 }).success).toBe(true);
  });
});

describe('dispatchReport: artifacts and resources', () => {
  it('puts the aggregation summary first, then the successful artifacts in completion order', () => {
    const subject = memo('all_success', result(2, 'success', 0.8, { reported_confidence: 0.95 }), result(1, 'failed', 0.2), result(3, 'success', 0.6, { specialist: 's2' }));
    const { outcome } = dispatchReport(subject, { ...input, rounds: 2 });
    const artifacts = outcome.artifacts as ArtifactInput[];
    expect(artifacts.map((artifact) => artifact.artifact_type)).toEqual(['aggregation_summary', 'code', 'code']);
    expect(artifacts.slice(1).map((artifact) => artifact.metadata)).toEqual([{ index: 2 }, { index: 3 }]);
    const [summary] = artifacts;
    expect(JSON.parse(summary!.inline_content!)).toEqual({ strategy: 'all_success', succeeded: 2, failed: 1 });
    expect(summary!.metadata).toMatchObject({
      child_outcomes: [
        { id: 'r.0-1', status: 'success', specialist: 's2', confidence: 0.8, reported_confidence: 0.95, subtask_index: 1, artifact_count: 1 },
        { id: 'r.0-0', status: 'failed', specialist: 's1', confidence: 0.2, subtask_index: 2, artifact_count: 0 },
        { id: 'r.0-2', status: 'success', specialist: 's2', confidence: 0.6, subtask_index: 3, artifact_count: 1 },
      ],
      revise: false,
      rounds: 2,
    });
    expect((summary!.metadata!.child_outcomes as object[])[1]).not.toHaveProperty('reported_confidence');
    expect(aggregatedOutcomeSchema.parse(summary!.metadata!.aggregated_outcome)).toMatchObject({ strategy_used: 'all_success', aggregated_status: 'partial' });
    expect(outcome.resources_used).toEqual({ parallel_tasks: 3, specialists_used: ['s2', 's1'], rounds: 2 });
    expect(outcome.result_refs).toEqual(['beads:routing/r/task-graph']);
  });

  it('tells each child’s error, words (cut short), attempts and specialists tried, for a revision', () => {
    const long = 'x'.repeat(CHILD_SUMMARY_CHARS + 10);
    const subject = memo('all_success', result(1, 'success', 0.8), result(2, 'failed', 0.2, { error_detail: long }));
    const tried: DispatchMemo = { ...subject, subtasks: subject.subtasks.map((state) => (state.index === 2 ? { ...state, attempts: 2, tried: ['a', 's2'] } : state)) };
    const [summary] = dispatchReport(tried, input).outcome.artifacts as ArtifactInput[];
    const [first, second] = (summary!.metadata as { child_outcomes: { error_type: unknown; summary: string; attempts: number; tried: string[] }[] }).child_outcomes;
    expect(first).toMatchObject({ error_type: null, summary: 'success', attempts: 0, tried: [] });
    expect(second).toMatchObject({ error_type: 'boom', attempts: 2, tried: ['a', 's2'] });
    expect(second!.summary).toHaveLength(CHILD_SUMMARY_CHARS);
    expect(second!.summary.endsWith('…')).toBe(true);
  });

  it('aggregates in completion order across rounds', () => {
    const subject: DispatchMemo = { ...memo('first_success', result(1, 'success', 0.9), result(2, 'success', 0.5)), completion: [2, 1] };
    const { aggregation } = dispatchReport(subject, input);
    expect(aggregation.winner).toBe('r.0-1');
    expect(aggregation.confidence).toBe(0.5);
  });

  it('refuses to report while a subtask has no result', () => {
    const subject: DispatchMemo = { ...memo('all_success', result(1, 'success', 0.9)), completion: [] };
    expect(() => dispatchReport(subject, input)).toThrow(expect.objectContaining({ code: 'invalid_round' }));
  });
});
