import { isJsonObject } from '@tierflow/protocol';

/** Subtasks below a parent, counted as its run's tree shows them: the leaves, over every round. */
export interface SubtaskTally {
  /** Subtasks sent to the tier that does the work, every round's (revisions, re-routes, retries) included. */
  readonly delegated: number;
  /** Those that answered `success`. */
  readonly succeeded: number;
}

export const NO_SUBTASKS: SubtaskTally = Object.freeze({ delegated: 0, succeeded: 0 });

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** A tally as written in a record or an outcome's `resources_used.subtasks`, or null when there is none (or it makes no sense). Pure. */
export function readTally(value: unknown): SubtaskTally | null {
  if (!isJsonObject(value)) return null;
  const delegated = count(value.delegated);
  const succeeded = count(value.succeeded);
  return delegated === null || succeeded === null || succeeded > delegated ? null : { delegated, succeeded };
}

/** An answer, as far as a tally reads it. */
export interface TalliedAnswer {
  readonly status: string;
  readonly resources_used?: unknown;
}

/**
 * What one child's answer counts for: the subtasks below it when it reports them (it delegated),
 * else itself, succeeded or not. Pure.
 */
export function childTally(answer: TalliedAnswer): SubtaskTally {
  const below = isJsonObject(answer.resources_used) ? readTally(answer.resources_used.subtasks) : null;
  return below ?? { delegated: 1, succeeded: answer.status === 'success' ? 1 : 0 };
}

/**
 * The subtasks below a parent: the rounds before (`earlier`), this round's children that
 * answered, and those that did not (`unanswered`, each one subtask that had not succeeded). Pure.
 */
export function tallyBelow(earlier: SubtaskTally | null | undefined, answered: readonly TalliedAnswer[], unanswered = 0): SubtaskTally {
  return answered.map(childTally).reduce((sum, tally) => ({ delegated: sum.delegated + tally.delegated, succeeded: sum.succeeded + tally.succeeded }), {
    delegated: (earlier?.delegated ?? 0) + Math.max(0, unanswered),
    succeeded: earlier?.succeeded ?? 0,
  });
}

/** The words a stopped parent's summary ends with, e.g. `; 2 of 4 delegated subtasks had succeeded`, or '' when it sent none. Pure. */
export function tallySentence(tally: SubtaskTally): string {
  if (tally.delegated === 0) return '';
  return `; ${tally.succeeded} of ${tally.delegated} delegated ${tally.delegated === 1 ? 'subtask' : 'subtasks'} had succeeded`;
}
