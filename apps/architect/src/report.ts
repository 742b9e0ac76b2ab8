import { AGGREGATE_ERROR_TYPE, AGGREGATION_SUMMARY, aggregate, learningMetadata, learningRecordsOf, toAggregatedOutcome, withoutUsage, type Aggregation, type ChildResult } from '@tierflow/core';
import type { AggregationStrategy, ArtifactInput, OutcomePayload } from '@tierflow/protocol';
import { passUp, type OutcomeFields } from '@tierflow/runtime/policy';
import type { ArchitectMemo } from './architect-memo.js';
import { workArtifactsOf, type ChildOutcomeEntry } from './child-outcomes.js';

/**
 * The Dispatcher's outcome forwarded, with the revisions it took in `resources_used`. Its usage
 * is left out: the runtime adds every round's usage itself, and a copy would count twice.
 */
export function forwardReport(outcome: OutcomePayload, revisions: number): OutcomeFields {
  return { ...passUp(outcome), resources_used: { ...withoutUsage(outcome.resources_used), revisions } };
}

/** The error_type of an aggregate, by status (the vocabulary lives in the core). */
export const ERROR_TYPE_OF = AGGREGATE_ERROR_TYPE;

/** What a report after a revision combines. */
export interface ReaggregationInput {
  readonly outcome: OutcomePayload;
  /** This round's child outcomes, subtask indices mapped to the original plan; null when the outcome had none. */
  readonly current: readonly ChildOutcomeEntry[] | null;
  readonly memo: Pick<ArchitectMemo, 'plan' | 'kept' | 'kept_artifacts' | 'delegated' | 'revisions' | 'outer'>;
  /** The Dispatcher delegation's message id: stands for each delegated subtask when the outcome names none. */
  readonly dispatcherId: string;
}

type Row = ChildResult & { subtask_index: number };

function keptRows(kept: ArchitectMemo['kept']): Row[] {
  return kept.map(({ message_id, specialist, status, confidence, subtask_index }) => ({ message_id, specialist, status, confidence, subtask_index }));
}

/** One row per subtask of the plan in force: the kept successes, then this round's results. */
function rowsOf(input: ReaggregationInput): Row[] {
  const kept = keptRows(input.memo.kept);
  const { outcome } = input;
  const current =
    input.current?.map(({ id, specialist, status, confidence, subtask_index }) => ({ message_id: id, specialist, status, confidence, subtask_index })) ??
    // No per-subtask outcomes (the Dispatcher job failed or timed out): each delegated subtask takes the outcome's status.
    input.memo.delegated.map((subtask_index) => ({
      message_id: input.dispatcherId,
      specialist: '',
      status: outcome.status,
      confidence: outcome.confidence,
      error_type: outcome.error_type,
      error_detail: outcome.error_detail,
      recoverable: outcome.recoverable,
      subtask_index,
    }));
  return [...kept, ...current];
}

function errorFieldsOf(aggregation: Aggregation, outcome: OutcomePayload): Pick<OutcomeFields, 'error_type' | 'error_detail' | 'recoverable'> {
  const errorType = ERROR_TYPE_OF[aggregation.status](aggregation.revise);
  if (errorType === null) return {};
  // The Dispatcher's detail names this round's reasons; the kept children all succeeded.
  return { error_type: errorType, error_detail: outcome.error_detail ?? aggregation.error_detail, recoverable: aggregation.recoverable };
}

/**
 * The rows and aggregate of the outermost plan: the plan in force aggregated, then, for each plan
 * a planner's revision replaced part of (innermost first), its kept successes with the inner
 * aggregate standing for each subtask it replaced (docs/protocol.md#revisions). Pure.
 */
function outermost(input: ReaggregationInput): { strategy: AggregationStrategy; rows: Row[]; aggregation: Aggregation } {
  const { memo } = input;
  let strategy: AggregationStrategy = memo.plan?.strategy ?? 'all_success';
  let rows = rowsOf(input);
  let aggregation = aggregate(strategy, rows);
  for (const frame of [...memo.outer].reverse()) {
    const inner = aggregation;
    const standIn = (subtask_index: number): Row => ({
      message_id: input.dispatcherId,
      specialist: '',
      status: inner.status,
      confidence: inner.confidence,
      error_type: ERROR_TYPE_OF[inner.status](inner.revise),
      error_detail: inner.error_detail,
      recoverable: inner.recoverable,
      subtask_index,
    });
    strategy = frame.plan?.strategy ?? 'all_success';
    rows = [...keptRows(frame.kept), ...frame.replaced.map(standIn)];
    aggregation = aggregate(strategy, rows);
  }
  return { strategy, rows, aggregation };
}

/**
 * The final outcome after a revision: the kept children and this round's aggregated again under
 * the plan's strategy (all_success without a plan), so the status covers the whole objective;
 * after a planner's new plan, that plan's aggregate stands for the subtasks it replaced, under
 * the strategy of the plan it replaced them in. An aggregation_summary of its own first (the
 * outermost plan's rows), then the kept work artifacts and this round's. Pure.
 */
export function reaggregatedReport(input: ReaggregationInput): { outcome: OutcomeFields; aggregation: Aggregation } {
  const { outcome, memo } = input;
  const { strategy, rows, aggregation } = outermost(input);
  const times = memo.revisions === 1 ? 'revision' : 'revisions';
  // This round's learning records; the handler adds the earlier rounds' before them.
  const learned = learningRecordsOf(outcome);
  const summary: ArtifactInput = {
    artifact_type: AGGREGATION_SUMMARY,
    content_ref: null,
    inline_content: JSON.stringify({ strategy, succeeded: aggregation.counts.succeeded, failed: aggregation.counts.failed }),
    metadata: {
      child_outcomes: rows.map((row) => ({ id: row.message_id, status: row.status, specialist: row.specialist, confidence: row.confidence, subtask_index: row.subtask_index })),
      aggregated_outcome: toAggregatedOutcome(aggregation),
      revise: aggregation.revise,
      revisions: memo.revisions,
      ...(memo.outer.length > 0 ? { replans: memo.outer.length } : {}),
      ...learningMetadata(learned.records, learned.dropped),
    },
  };
  return {
    aggregation,
    outcome: {
      status: aggregation.status,
      summary: `${aggregation.summary} (after ${memo.revisions} ${times})`,
      confidence: aggregation.confidence,
      result_refs: outcome.result_refs,
      resources_used: { ...withoutUsage(outcome.resources_used), revisions: memo.revisions },
      surprise_flag: outcome.surprise_flag,
      surprise_reason: outcome.surprise_reason,
      ...errorFieldsOf(aggregation, outcome),
      artifacts: [summary, ...memo.kept_artifacts, ...workArtifactsOf(outcome.artifacts)],
    },
  };
}
