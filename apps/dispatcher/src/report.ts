import { AGGREGATE_ERROR_TYPE, AGGREGATION_SUMMARY, aggregate, learningMetadata, toAggregatedOutcome, type Aggregation, type ChildResult } from '@tierflow/core';
import { TierflowError, type ArtifactInput } from '@tierflow/protocol';
import type { OutcomeFields } from '@tierflow/runtime/policy';
import type { DispatchMemo, SubtaskResult } from './dispatch-memo.js';

/** The error_type of an aggregate, by status (the vocabulary lives in the core). */
export const ERROR_TYPE_OF = AGGREGATE_ERROR_TYPE;

/** The error fields of an aggregate; none on success. A clarification's detail is its questions, a blocked one's its blockers, joined with ` | `. */
export function errorFieldsOf(aggregation: Aggregation): Pick<OutcomeFields, 'error_type' | 'error_detail' | 'recoverable'> {
  const errorType = ERROR_TYPE_OF[aggregation.status](aggregation.revise);
  if (errorType === null) return {};
  const questions = aggregation.questions.length > 0 ? aggregation.questions.join(' | ') : null;
  const blockers = aggregation.blockers.length > 0 ? aggregation.blockers.join(' | ') : null;
  const detail = aggregation.status === 'needs_clarification' ? questions : aggregation.status === 'blocked' ? blockers : null;
  return {
    error_type: errorType,
    error_detail: detail ?? aggregation.error_detail,
    recoverable: aggregation.recoverable,
  };
}

/** A subtask's latest result with its index, in completion order. */
export interface LatestResult {
  readonly index: number;
  readonly result: SubtaskResult;
}

/**
 * Every subtask's latest result, in completion order across rounds.
 *
 * @throws TierflowError (permanent, code `invalid_round`) when a subtask has none: every child settles before a resume.
 */
export function latestResults(memo: DispatchMemo): LatestResult[] {
  const missing = memo.subtasks.filter((subtask) => subtask.result === null || !memo.completion.includes(subtask.index));
  if (missing.length > 0) {
    throw TierflowError.permanent(`no outcome for subtask ${missing.map((subtask) => subtask.index).join(', ')}`, { code: 'invalid_round' });
  }
  return memo.completion.flatMap((index) => {
    const result = memo.subtasks.find((subtask) => subtask.index === index)?.result;
    return result ? [{ index, result }] : [];
  });
}

function childResultOf({ result }: LatestResult): ChildResult {
  const { message_id, specialist, status, confidence, error_type, error_detail, recoverable } = result;
  return { message_id, specialist, status, confidence, error_type, error_detail, recoverable };
}

/** A summary kept in the aggregation_summary is cut to this many characters: the work itself travels in the artifacts. */
export const CHILD_SUMMARY_CHARS = 500;

/** A child's error, words and attempts, for the summary's `child_outcomes`. */
function attemptsOf(memo: DispatchMemo, index: number, result: SubtaskResult): { error_type: string | null; summary: string; attempts: number; tried: string[] } {
  const state = memo.subtasks.find((subtask) => subtask.index === index);
  const words = result.status === 'success' ? result.summary : (result.error_detail ?? result.summary);
  return {
    error_type: result.error_type,
    summary: words.length > CHILD_SUMMARY_CHARS ? `${words.slice(0, CHILD_SUMMARY_CHARS - 1)}…` : words,
    // A subtask never sent (what it depends on failed) has no count.
    attempts: state?.attempts ?? 0,
    tried: state?.tried ?? [],
  };
}

/** What a report needs beyond the memo. */
export interface DispatchReportInput {
  /** Rounds delegated so far: 1 without re-routing. */
  readonly rounds: number;
  /** `beads:routing/<root>/task-graph`. */
  readonly taskGraphRef: string;
}

/**
 * The Dispatcher's outcome (docs/protocol.md#aggregated-outcome): every subtask's latest result
 * aggregated under the plan's strategy, an `aggregation_summary` artifact first, then every
 * artifact of the subtasks that succeeded, in the order of the summary's `child_outcomes`. Pure.
 */
export function dispatchReport(memo: DispatchMemo, input: DispatchReportInput): { outcome: OutcomeFields; aggregation: Aggregation } {
  const latest = latestResults(memo);
  const aggregation = aggregate(memo.strategy, latest.map(childResultOf));
  const { counts } = aggregation;
  const summary: ArtifactInput = {
    artifact_type: AGGREGATION_SUMMARY,
    content_ref: null,
    inline_content: JSON.stringify({ strategy: memo.strategy, succeeded: counts.succeeded, failed: counts.failed }),
    metadata: {
      child_outcomes: latest.map(({ index, result }) => ({
        id: result.message_id,
        status: result.status,
        specialist: result.specialist,
        confidence: result.confidence,
        // The raw value beside the calibrated one (docs/protocol.md#calibrated-confidence).
        ...(result.reported_confidence === null ? {} : { reported_confidence: result.reported_confidence }),
        subtask_index: index,
        // How many of the work artifacts after the summary are this child's, in this order: a
        // revision that runs a succeeded subtask again drops its earlier ones by it.
        artifact_count: result.status === 'success' ? result.artifacts.length : 0,
        // What a revision's planner is told (docs/protocol.md#revisions).
        ...attemptsOf(memo, index, result),
      })),
      aggregated_outcome: toAggregatedOutcome(aggregation),
      revise: aggregation.revise,
      rounds: input.rounds,
      // For the Monitor's history (docs/operations.md#routing-modes): every leaf attempt of this dispatch.
      ...learningMetadata(memo.learning),
    },
  };
  const surprises = surprisesOf(memo, latest);
  const succeeded = latest.filter(({ result }) => result.status === 'success');
  const specialists = [...new Set(latest.map(({ result }) => result.specialist).filter((name) => name !== ''))];
  return {
    aggregation,
    outcome: {
      status: aggregation.status,
      summary: aggregation.summary,
      confidence: aggregation.confidence,
      result_refs: [input.taskGraphRef],
      resources_used: { parallel_tasks: memo.subtasks.length, specialists_used: specialists, rounds: input.rounds },
      surprise_flag: surprises.length > 0,
      surprise_reason: surprises.length > 0 ? surprises.join('; ') : null,
      ...errorFieldsOf(aggregation),
      artifacts: [summary, ...succeeded.flatMap(({ result }) => result.artifacts)],
    },
  };
}

/** What surprised in this dispatch: its own judgements of the leaf attempts, then what the children flagged themselves, by subtask. */
function surprisesOf(memo: DispatchMemo, latest: readonly LatestResult[]): string[] {
  const flagged = latest.flatMap(({ index, result }) => (result.surprise === null ? [] : [`subtask ${index}: ${result.surprise}`]));
  return [...new Set([...memo.surprises, ...flagged])];
}
