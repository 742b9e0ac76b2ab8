// Test support: Dispatcher outcomes shaped as the Dispatcher reports them (an aggregation_summary
// first, then the successful children's artifacts). Not exported from the package.
import { aggregate, type ChildResult } from '@tierflow/core';
import type { AggregationStrategy, ArtifactInput, OutcomeStatus } from '@tierflow/protocol';
import type { OutcomeReply } from '@tierflow/runtime/testing';
import { ERROR_TYPE_OF } from './report.js';

/** One subtask's result: status, confidence, and the specialist (default `s<index>`). */
export type Row = readonly [OutcomeStatus, number, string?];

/** A Dispatcher outcome over `rows` (subtask 1, 2, … in completion order); the successes carry a code artifact each. */
export function dispatcherReply(strategy: AggregationStrategy, rows: readonly Row[], idPrefix = 'd.0'): OutcomeReply {
  const children: ChildResult[] = rows.map(([status, confidence, specialist], i) => ({
    message_id: `${idPrefix}-${i}`,
    specialist: specialist ?? `s${i + 1}`,
    status,
    confidence,
    error_type: status === 'success' ? null : 'execution_error',
    error_detail: status === 'success' ? null : `subtask ${i + 1} broke`,
  }));
  const aggregation = aggregate(strategy, children);
  const errorType = ERROR_TYPE_OF[aggregation.status](aggregation.revise);
  const summary: ArtifactInput = {
    artifact_type: 'aggregation_summary',
    inline_content: JSON.stringify({ strategy, succeeded: aggregation.counts.succeeded, failed: aggregation.counts.failed }),
    metadata: {
      child_outcomes: children.map((child, i) => ({
        id: child.message_id,
        status: child.status,
        specialist: child.specialist,
        confidence: child.confidence,
        subtask_index: i + 1,
        artifact_count: child.status === 'success' ? 1 : 0,
        error_type: child.error_type,
        summary: child.error_detail ?? 'done',
        attempts: 1,
        tried: [child.specialist],
      })),
      revise: aggregation.revise,
    },
  };
  const work: ArtifactInput[] = children.filter((child) => child.status === 'success').map((child) => ({ artifact_type: 'code', inline_content: `by ${child.message_id}`, metadata: {} }));
  return {
    status: aggregation.status,
    summary: aggregation.summary,
    confidence: aggregation.confidence,
    result_refs: ['beads:routing/r1/task-graph'],
    resources_used: { parallel_tasks: rows.length, rounds: 1 },
    ...(errorType === null ? {} : { error_type: errorType, error_detail: aggregation.error_detail, recoverable: aggregation.recoverable }),
    artifacts: [summary, ...work],
  };
}
