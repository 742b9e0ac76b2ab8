import { OUTCOME_STATUSES, outcomeStatusSchema, type OutcomeStatus } from '@tierflow/protocol';
import { z } from 'zod';

/**
 * Every status a user sees, in `tierflow status`, `watch`, `runs`, the API and the dashboard
 * (docs/statuses.md): where a node's work is before it answers, then its outcome's status.
 * BullMQ's own states show only in the debug field `queue_state`.
 */
export const RUN_STATUSES = ['queued', 'running', 'waiting_for_children', 'input_required', 'retrying', 'deferred', ...OUTCOME_STATUSES, 'missing', 'unreadable'] as const;

export const runStatusSchema = z.enum(RUN_STATUSES).meta({
  description:
    'queued: waiting for a worker; running: a worker has it; waiting_for_children: its delegations are under way; input_required: waits for a person; ' +
    "retrying: waits in the delayed set before its next pass (the back-off after a failed attempt, or a subtask sent again later); deferred: left its worker to wait for a time its pass chose (room at its model, a server's Retry-After), and goes on by itself; an outcome status once it answered; missing: no job and no outcome on record; unreadable: its job record does not parse.",
});
export type RunStatus = z.infer<typeof runStatusSchema>;

/** The statuses of work not finished yet: a run or node in one of these may still change. */
export const UNFINISHED_STATUSES: ReadonlySet<RunStatus> = new Set(['queued', 'running', 'waiting_for_children', 'input_required', 'retrying', 'deferred']);

/** BullMQ's states as `Job.getState()` and `Queue.getJobs()` name them, and `unreadable` for a job record that does not parse. */
export const QUEUE_STATES = ['waiting', 'wait', 'paused', 'prioritized', 'delayed', 'active', 'waiting-children', 'completed', 'failed', 'unknown', 'unreadable'] as const;

/** The one user-facing word for each queue state of a job that has no outcome (and waits for no person). */
const BY_QUEUE_STATE: Readonly<Record<string, RunStatus>> = {
  waiting: 'queued',
  wait: 'queued',
  paused: 'queued',
  prioritized: 'queued',
  // A job in the delayed set waits before its next pass: a retry's back-off or a re-sent subtask's delay. A root
  // waiting for answers, and a pass that left its worker to wait (for room at its model), are told apart by their marks.
  delayed: 'retrying',
  active: 'running',
  'waiting-children': 'waiting_for_children',
  // Finished without an outcome one can read: failed outright, or a return value that is no valid (or no signed) outcome.
  completed: 'failed',
  failed: 'failed',
  unreadable: 'unreadable',
};

/** What a status is made from: the job's queue state (null once it is gone), its outcome's status, whether it waits for a person, and whether its pass left the worker to wait. */
export interface StatusFacts {
  readonly queueState: string | null;
  readonly outcome: OutcomeStatus | null;
  readonly waitsForPerson?: boolean;
  /** It waits for blocked work below it to be unblocked (docs/protocol.md#blocked-work): it reads `blocked` before it answers. */
  readonly blocked?: boolean;
  /** Its current attempt is marked deferred (engine/defer.ts): it waits in the delayed set for a time its pass chose. */
  readonly deferred?: boolean;
}

/**
 * The status a user sees for a node or a run, first that applies: its outcome's status; then
 * `input_required` while it waits for a person; `blocked` while it waits for blocked work to be
 * unblocked; `deferred` while its pass waits off the worker;
 * then its queue state's word; `missing` for a job
 * gone (or in a state BullMQ does not know) with no outcome. Pure.
 */
export function runStatus({ queueState, outcome, waitsForPerson = false, blocked = false, deferred = false }: StatusFacts): RunStatus {
  if (outcome !== null) return outcome;
  if (waitsForPerson) return 'input_required';
  if (blocked) return 'blocked';
  if (deferred && queueState === 'delayed') return 'deferred';
  return (queueState === null ? undefined : BY_QUEUE_STATE[queueState]) ?? 'missing';
}

/**
 * The queue states a status can come from (what `runs --status` looks through): an outcome is
 * read from a completed job, `failed` also from a failed one; the others from their table row. Pure.
 */
export function queueStatesOf(status: RunStatus): readonly string[] {
  if (status === 'input_required' || status === 'deferred') return ['delayed'];
  // A run waiting on blocked work reads `blocked` from the delayed set, before its outcome does.
  if (status === 'blocked') return ['completed', 'delayed'];
  const states = Object.keys(BY_QUEUE_STATE).filter((state) => BY_QUEUE_STATE[state] === status);
  return outcomeStatusSchema.safeParse(status).success ? [...new Set(['completed', ...states])] : states;
}

/** A status as typed by a person, `waiting for children` for `waiting_for_children`; null for a word not in the vocabulary. Pure. */
export function parseRunStatus(text: string): RunStatus | null {
  const parsed = runStatusSchema.safeParse(
    text
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_'),
  );
  return parsed.success ? parsed.data : null;
}
