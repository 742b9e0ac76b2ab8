import type { AggregationStrategy, ChildOutcomeSummary, OutcomeStatus } from '@tierflow/protocol';
import { blockersOf, errorDetailOf, questionsOf, summarize } from './aggregate-report.js';
import { classifyChild, countChildren, countedChildren, isRecoverableFailure, type AggregationCounts, type ChildResult } from './child-result.js';
import { isConfidence, meanConfidence } from './mean-confidence.js';
import { strategyVerdict, type Majority } from './strategy-verdict.js';

/** The combined result of a fan-out: what the parent reports up, and what the runtime must do next. */
export interface Aggregation {
  readonly status: OutcomeStatus;
  /** How far the aggregate's work can be trusted (docs/protocol.md#aggregated-confidence): see {@link aggregate}. */
  readonly confidence: number;
  readonly strategy: AggregationStrategy;
  readonly counts: AggregationCounts;
  /** Which side holds the majority; null unless the status is `partial`. */
  readonly majority: Majority | null;
  /** Flagged for strategy revision (docs/protocol.md#aggregation-strategies): a partial result where most counted children fell short. */
  readonly revise: boolean;
  /** Null on success and when every child was cancelled; see {@link aggregate}. */
  readonly recoverable: boolean | null;
  /** first_success: the message id of the first child that succeeded. */
  readonly winner: string | null;
  /** The clarifying questions, when the status is `needs_clarification`. */
  readonly questions: readonly string[];
  /** What the blocked children wait on (their error detail), when the status is `blocked`. */
  readonly blockers: readonly string[];
  /** One per child, in input order. */
  readonly child_outcomes: readonly ChildOutcomeSummary[];
  readonly summary: string;
  /** What went wrong, child by child (`test-lora failed: timeout after 30000ms; …`); null on success. */
  readonly error_detail: string | null;
}

/**
 * Combines a fan-out's child outcomes under its strategy
 * (docs/protocol.md#aggregation-strategies, docs/protocol.md#clarification). Children come in
 * completion order, first finished first. Pure and deterministic.
 *
 * Each child is classified by its status:
 *
 * | Child status                   | Class      | Why                                                              |
 * | ------------------------------ | ---------- | ---------------------------------------------------------------- |
 * | `success`                      | succeeded  |                                                                  |
 * | `partial`                      | progressed | made progress, not a success                                     |
 * | `failed`, `timeout`            | failed     |                                                                  |
 * | `throttled`                    | failed     | still throttled at aggregation time; always recoverable          |
 * | `needs_clarification`          | asks       | not a success; its question flows up                             |
 * | `blocked`                      | waits      | waits on something outside the run; its blockers flow up         |
 * | `cancelled`                    | cancelled  | stopped by a higher tier or lost a race: not counted, not failed |
 *
 * With n the counted (non-cancelled) children, s those that succeeded and p those that progressed:
 *
 * | Strategy        | `success` when                 | else, if s = 0 and p = 0 | else                                                                    |
 * | --------------- | ------------------------------ | ------------------------ | ----------------------------------------------------------------------- |
 * | `all_success`   | s = n                          | `failed`                 | `partial`: majority succeeded if s > n/2, else majority failed + revise |
 * | `any_success`   | s ≥ 1                          | `failed`                 | `partial`, majority failed + revise                                     |
 * | `majority`      | s > n/2 (a tie is no majority) | `failed`                 | `partial`, majority failed + revise                                     |
 * | `first_success` | a winner: the first `success`  | `failed`                 | `partial`, majority failed + revise                                     |
 *
 * Overriding that table, in order:
 * - n = 0 (every child cancelled) → `cancelled`.
 * - Any status but `success` with at least one `needs_clarification` child → `needs_clarification`,
 *   with the children's questions: ambiguity flows up, it is never guessed at.
 * - Else, any status but `success` with at least one `blocked` child → `blocked`: the run waits
 *   for the dependency rather than revising or retrying around it. Questions go first because a
 *   person can answer them now; a child still blocked reports so again when the round is re-sent.
 *
 * Confidence says how far the aggregate's work can be trusted (docs/protocol.md#aggregated-confidence):
 * the mean over the children it answers for, a failed child counting 0 (its work cannot be
 * trusted at all, however sure it was of its failure), every other its own confidence:
 *
 * | Status                                     | Children averaged      | A failed child counts |
 * | ------------------------------------------ | ---------------------- | --------------------- |
 * | `success`, first_success                   | the winner alone       | —                     |
 * | `success`, all other strategies            | the succeeded children | —                     |
 * | `partial`, `failed`, `needs_clarification`, `blocked` | every counted child | 0          |
 * | `cancelled` (every child cancelled)        | every child            | —                     |
 *
 * So a `failed` aggregate is 0, and a `partial` one is at most the share of counted children that
 * did not fail times their highest confidence.
 *
 * `recoverable` is null on `success` and `cancelled`; on `failed`, true unless every failed child
 * said `recoverable: false` (a throttled child is always recoverable); on `partial`,
 * `needs_clarification` and `blocked`, true.
 *
 * @throws RangeError for no children (a fan-out has at least one), or a confidence outside [0, 1].
 */
export function aggregate(strategy: AggregationStrategy, children: readonly ChildResult[]): Aggregation {
  if (children.length === 0) throw new RangeError('aggregate needs at least one child: a fan-out has at least one');
  children.forEach(checkChild);

  const counts = countChildren(children);
  const counted = countedChildren(counts);
  const verdict = counted === 0 ? null : strategyVerdict(strategy, counts, counted);
  const winnerChild = strategy === 'first_success' ? (children.find((child) => child.status === 'success') ?? null) : null;

  let status: OutcomeStatus = verdict === null ? 'cancelled' : verdict.status;
  if (status !== 'success' && status !== 'cancelled' && counts.asks > 0) status = 'needs_clarification';
  else if (status !== 'success' && status !== 'cancelled' && counts.waits > 0) status = 'blocked';

  const majority = status === 'partial' ? (verdict?.majority ?? null) : null;
  const questions = status === 'needs_clarification' ? questionsOf(children) : [];
  return {
    status,
    confidence: meanConfidence(carried(status, winnerChild, children).map(trustedConfidence)),
    strategy,
    counts,
    majority,
    revise: majority === 'failed',
    recoverable: recoverableOf(status, children),
    winner: winnerChild?.message_id ?? null,
    questions,
    blockers: status === 'blocked' ? blockersOf(children) : [],
    child_outcomes: children.map(({ message_id, status: childStatus, confidence, specialist }) => ({
      message_id,
      status: childStatus,
      confidence,
      specialist,
    })),
    summary: summarize({ strategy, status, counts, majority, winner: winnerChild, questions }),
    error_detail: errorDetailOf(status, children),
  };
}

function checkChild(child: ChildResult, index: number): void {
  if (!isConfidence(child.confidence)) {
    throw new RangeError(`child ${index} (${child.message_id}): confidence must be within [0, 1], got ${child.confidence}`);
  }
}

/** The children whose output, and so whose confidence, the aggregate carries (see the table above). */
function carried(status: OutcomeStatus, winner: ChildResult | null, children: readonly ChildResult[]): readonly ChildResult[] {
  if (status === 'cancelled') return children;
  if (status === 'success') return winner ? [winner] : children.filter((child) => classifyChild(child) === 'succeeded');
  return children.filter((child) => classifyChild(child) !== 'cancelled');
}

/** What a child's work counts for in its aggregate's confidence: nothing, when it failed. */
function trustedConfidence(child: ChildResult): number {
  return classifyChild(child) === 'failed' ? 0 : child.confidence;
}

function recoverableOf(status: OutcomeStatus, children: readonly ChildResult[]): boolean | null {
  if (status === 'success' || status === 'cancelled') return null;
  if (status !== 'failed') return true;
  return children.some((child) => classifyChild(child) === 'failed' && isRecoverableFailure(child));
}
