import type { OutcomeStatus } from '@tierflow/protocol';
import { withDependencies } from '@tierflow/runtime/policy';
import type { ArchitectMemo, KeptChild } from './architect-memo.js';
import type { ChildOutcomeEntry } from './child-outcomes.js';

/** What the Architect needs to know about the Dispatcher's outcome. */
export interface DispatcherVerdict {
  readonly status: OutcomeStatus;
  readonly error_type: string | null;
  readonly recoverable: boolean | null;
  /** From the outcome's aggregation_summary; null when it has none. */
  readonly childOutcomes: readonly ChildOutcomeEntry[] | null;
}

/** The Architect's next move. */
export type ArchitectDecision =
  /** Ambiguity flows up, never guessed at (docs/protocol.md#clarification); so does work blocked on something outside the run (docs/protocol.md#blocked-work), which no revision can fix. */
  | { readonly kind: 'pass_up' }
  | {
      readonly kind: 'revise';
      /** The original plan's subtask indices to delegate again, ascending. */
      readonly subtasks: readonly number[];
      /** The children that succeeded this round, by original subtask index. */
      readonly kept: readonly KeptChild[];
    }
  | {
      readonly kind: 'report';
      /** After a revision: aggregate the kept children with this round's, so the status covers the whole objective. */
      readonly reaggregate: boolean;
    };

/**
 * What makes the Architect revise (docs/protocol.md#escalation): a partial whose majority failed
 * (the Dispatcher's `majority_failed`), or a failure that may succeed if tried again.
 */
export function callsForRevision(verdict: Pick<DispatcherVerdict, 'status' | 'error_type' | 'recoverable'>): boolean {
  return (verdict.status === 'partial' && verdict.error_type === 'majority_failed') || (verdict.status === 'failed' && verdict.recoverable === true);
}

/**
 * Pass up, revise or report, and which subtasks a revision takes. A revision re-delegates the
 * subtasks that did not succeed, mapped back to the original plan; when the outcome does not say
 * which those are, all of the delegated ones. Either set is closed over the plan's dependencies
 * (docs/protocol.md#subtask-dependencies): a subtask sent again takes its input from what it
 * depends on, so that goes again too, and is no longer kept. Pure.
 */
export function decideArchitect(verdict: DispatcherVerdict, memo: Pick<ArchitectMemo, 'revisions' | 'delegated' | 'plan'>, maxRevisions: number): ArchitectDecision {
  if (verdict.status === 'needs_clarification' || verdict.status === 'blocked') return { kind: 'pass_up' };
  const report: ArchitectDecision = { kind: 'report', reaggregate: memo.revisions > 0 };
  if (!callsForRevision(verdict) || memo.revisions >= maxRevisions) return report;
  const closed = (indices: readonly number[]): number[] => (memo.plan ? withDependencies(memo.plan, indices) : [...new Set(indices)].sort((a, b) => a - b));

  const mapped = mapToPlan(verdict.childOutcomes, memo.delegated);
  if (mapped === null) return { kind: 'revise', subtasks: closed(memo.delegated), kept: [] };
  const failed = mapped.filter((entry) => entry.status !== 'success').map((entry) => entry.subtask_index);
  if (failed.length === 0) return report;
  const subtasks = closed(failed);
  return {
    kind: 'revise',
    subtasks,
    kept: mapped
      .filter((entry) => entry.status === 'success' && !subtasks.includes(entry.subtask_index))
      .map(({ id, specialist, status, confidence, subtask_index, summary }) => ({ message_id: id, specialist, status, confidence, subtask_index, ...(summary === undefined ? {} : { summary }) })),
  };
}

/**
 * The child outcomes with each subtask_index made an index of the original plan; null when there
 * are none, or one names a subtask the Dispatcher was not given.
 */
export function mapToPlan(entries: readonly ChildOutcomeEntry[] | null, delegated: readonly number[]): ChildOutcomeEntry[] | null {
  if (entries === null) return null;
  const mapped: ChildOutcomeEntry[] = [];
  for (const entry of entries) {
    const original = delegated[entry.subtask_index - 1];
    if (original === undefined) return null;
    mapped.push({ ...entry, subtask_index: original });
  }
  return mapped;
}
