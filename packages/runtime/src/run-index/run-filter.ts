import type { RunStatus } from '../status/run-status.js';
import type { IndexedRun } from './run-facts.js';

/** What `tierflow runs` can be asked to keep: every field given must hold. */
export interface RunFilter {
  /** A word of the status vocabulary (docs/statuses.md). */
  readonly status?: RunStatus;
  /** Text in the objective, in any case. */
  readonly text?: string;
  /** A task type, specialist, model or error type seen anywhere in the run's tree. */
  readonly taskType?: string;
  readonly specialist?: string;
  readonly model?: string;
  readonly errorType?: string;
  /** Submitted at or after, at or before (ms since the epoch). */
  readonly since?: number;
  readonly until?: number;
  /** What its model calls cost, in USD, at least and at most. */
  readonly minCostUsd?: number;
  readonly maxCostUsd?: number;
}

/** Whether the filter asks about what the tree saw: only then are the tiers' records read. Pure. */
export function filtersTree(filter: RunFilter): boolean {
  return filter.taskType !== undefined || filter.specialist !== undefined || filter.model !== undefined || filter.errorType !== undefined;
}

/** Whether the filter keeps anything out besides by status (which the queue alone can answer). Pure. */
export function filtersBeyondStatus(filter: RunFilter): boolean {
  return filtersTree(filter) || filter.text !== undefined || filter.since !== undefined || filter.until !== undefined || filter.minCostUsd !== undefined || filter.maxCostUsd !== undefined;
}

/** Whether a run's indexed facts pass the filter, its status aside (see {@link matchesStatus}). Pure. */
export function matchesFacts(run: IndexedRun, filter: RunFilter): boolean {
  if (filter.since !== undefined && run.submittedAt < filter.since) return false;
  if (filter.until !== undefined && run.submittedAt > filter.until) return false;
  if (filter.text !== undefined && !(run.objective ?? '').toLowerCase().includes(filter.text.toLowerCase())) return false;
  if (filter.taskType !== undefined && !run.seen.taskTypes.includes(filter.taskType)) return false;
  if (filter.specialist !== undefined && !run.seen.specialists.includes(filter.specialist)) return false;
  if (filter.model !== undefined && !run.seen.models.includes(filter.model)) return false;
  if (filter.errorType !== undefined && !run.seen.errorTypes.includes(filter.errorType)) return false;
  // To the micro-dollar the budget counts in, so a bound typed as shown matches what is shown.
  const micro = Math.round(run.costUsd * 1_000_000);
  if (filter.minCostUsd !== undefined && micro < Math.round(filter.minCostUsd * 1_000_000)) return false;
  if (filter.maxCostUsd !== undefined && micro > Math.round(filter.maxCostUsd * 1_000_000)) return false;
  return true;
}

/** Whether a run of `status` passes the filter's status. Pure. */
export function matchesStatus(status: RunStatus, filter: RunFilter): boolean {
  return filter.status === undefined || filter.status === status;
}
