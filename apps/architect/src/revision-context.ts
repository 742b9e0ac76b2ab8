import type { OutcomePayload } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import type { RevisionContext, RevisionFailure } from '@tierflow/runtime/policy';
import type { KeptChild } from './architect-memo.js';
import type { ChildOutcomeEntry } from './child-outcomes.js';

/** What the failure in hand is made of. */
export interface RevisionInput {
  /** The revision about to run: 1 for the first. */
  readonly round: number;
  /** The plan in force (the memo's), null when the objective went down whole. */
  readonly plan: Plan | null;
  /** The plan that ran: `plan`, or the whole objective's one subtask. */
  readonly ran: Plan;
  /** The subtasks the revision takes on (the decision's), ascending. */
  readonly redo: readonly number[];
  /** Every child of `plan` kept so far, this round's included. */
  readonly kept: readonly KeptChild[];
  /** This round's child outcomes mapped to `plan`'s indices; null when the outcome names none. */
  readonly current: readonly ChildOutcomeEntry[] | null;
  /** The subtasks this round was given (`plan`'s indices). */
  readonly delegated: readonly number[];
  readonly outcome: Pick<OutcomePayload, 'error_type' | 'error_detail' | 'summary'>;
}

/**
 * What a revision's planner is told: each subtask of this round that did not succeed with its
 * error, words, specialists and attempts, what succeeded, and what the new plan is for. When the
 * outcome names no child (the Dispatcher failed as a whole), each delegated subtask failed with
 * the outcome's error, its specialist and attempts unknown. Pure.
 */
export function revisionContextOf(input: RevisionInput): RevisionContext {
  const subtask = (index: number) => input.ran.subtasks[index - 1];
  const failure = (index: number, fields: Omit<RevisionFailure, 'subtask_index' | 'description' | 'task_type'>): RevisionFailure => ({
    subtask_index: index,
    description: subtask(index)?.objective ?? '',
    task_type: subtask(index)?.task_type ?? null,
    ...fields,
  });
  const failed =
    input.current === null
      ? input.delegated.map((index) => failure(index, { specialist: '', tried: [], error_type: input.outcome.error_type, summary: input.outcome.error_detail ?? input.outcome.summary, attempts: 0 }))
      : input.current
          .filter((entry) => entry.status !== 'success')
          .map((entry) =>
            failure(entry.subtask_index, {
              specialist: entry.specialist,
              tried: entry.tried ?? (entry.specialist === '' ? [] : [entry.specialist]),
              error_type: entry.error_type ?? null,
              summary: entry.summary ?? `ended ${entry.status}`,
              attempts: entry.attempts ?? 1,
            }),
          );
  return {
    round: input.round,
    plan: input.plan,
    redo: [...input.redo],
    failed: failed.sort((a, b) => a.subtask_index - b.subtask_index),
    succeeded: input.kept
      .filter((kept) => !input.redo.includes(kept.subtask_index))
      .map((kept) => ({ subtask_index: kept.subtask_index, specialist: kept.specialist, summary: kept.summary ?? '' }))
      .sort((a, b) => a.subtask_index - b.subtask_index),
  };
}

/**
 * The specialists to avoid for each failed subtask, by index: those that failed it this round
 * (every one it was sent to), added to those it avoided already. Pure.
 */
export function avoidedSpecialists(plan: Plan, failed: readonly RevisionFailure[]): Map<number, string[]> {
  const avoid = new Map<number, string[]>();
  for (const failure of failed) {
    const now = failure.tried.length > 0 ? failure.tried : failure.specialist === '' ? [] : [failure.specialist];
    const before = plan.subtasks[failure.subtask_index - 1]?.avoid_specialists ?? [];
    const all = [...new Set([...before, ...now])];
    if (all.length > 0) avoid.set(failure.subtask_index, all);
  }
  return avoid;
}

/** `plan` with each subtask's `avoid_specialists` from `avoid` (by 1-based index), the others as they were. Pure. */
export function withAvoided(plan: Plan, avoid: ReadonlyMap<number, readonly string[]>): Plan {
  if (avoid.size === 0) return plan;
  return { ...plan, subtasks: plan.subtasks.map((subtask, i) => (avoid.has(i + 1) ? { ...subtask, avoid_specialists: [...avoid.get(i + 1)!] } : subtask)) };
}
