import { ERROR_TYPES, type UpstreamWork } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import type { DispatchMemo, SubtaskResult, SubtaskState } from './dispatch-memo.js';
import { DEFAULT_TASK_TYPE } from './plan-of.js';

// When a subtask with dependencies is sent, and with what (docs/protocol.md#subtask-dependencies).
// Pure: the handler applies these decisions.

/** The subtasks (1-based) a plan starts with: those that depend on none. */
export function startingSubtasks(plan: Plan): number[] {
  return plan.subtasks.flatMap((subtask, i) => ((subtask.depends_on?.length ?? 0) === 0 ? [i + 1] : []));
}

function dependenciesOf(plan: Plan, index: number): readonly number[] {
  return plan.subtasks[index - 1]?.depends_on ?? [];
}

/** What the next round's dependents need to know beyond the plan and the memo. */
export interface ReleaseInput {
  /** The subtasks this round sends again (re-routes, throttle back-offs, concern retries): their dependents wait for the new answer. */
  readonly resending: ReadonlySet<number>;
  /** ms since the epoch: a dependent's deadline counts from when it is sent. */
  readonly now: number;
  /** How long this round is held back (a throttle back-off): time a dependent sent in it cannot use. */
  readonly delayMs: number;
  /** The timeout of a subtask that sets none. */
  readonly fleetTimeoutMs: number;
  /** The Dispatcher's own delegation: the message id a subtask that never ran is reported under. */
  readonly dispatchId: string;
}

/** A round's dependents: which go out now, and which will never run. */
export interface Release {
  /** The memo with the unrunnable subtasks' results recorded and the released ones' deadlines set. */
  readonly memo: DispatchMemo;
  /** Subtasks to send in this round, their dependencies all succeeded; ascending. */
  readonly ready: readonly number[];
  /** Subtasks that will not run, a dependency having ended without success; in the order found. */
  readonly blocked: readonly number[];
  /** Timeouts for released subtasks held back by the round's delay, so they keep their whole time. */
  readonly timeouts: Readonly<Record<number, number>>;
}

type Standing = 'succeeded' | 'failed' | 'waiting';

function standingOf(state: SubtaskState | undefined, resending: ReadonlySet<number>): Standing {
  if (!state?.result || resending.has(state.index)) return 'waiting';
  return state.result.status === 'success' ? 'succeeded' : 'failed';
}

/**
 * After a round is recorded and its re-sends chosen: every subtask not yet sent whose
 * dependencies have all succeeded is released; one with a dependency that ended without success
 * (and is not being sent again) gets a `failed` result, `dependency_failed`, without running, which
 * blocks its own dependents in turn. The rest wait for a later round.
 */
export function releaseDependents(plan: Plan, memo: DispatchMemo, input: ReleaseInput): Release {
  const states = new Map(memo.subtasks.map((state) => [state.index, state]));
  const completion = [...memo.completion];
  const ready: number[] = [];
  const blocked: number[] = [];
  const timeouts: Record<number, number> = {};
  for (let changed = true; changed;) {
    changed = false;
    for (const state of states.values()) {
      if (state.result !== null || ready.includes(state.index)) continue;
      const dependencies = dependenciesOf(plan, state.index);
      const failed = dependencies.find((dependency) => standingOf(states.get(dependency), input.resending) === 'failed');
      if (failed !== undefined) {
        states.set(state.index, { ...state, result: dependencyFailure(failed, states.get(failed)!.result!, state.specialist, input.dispatchId) });
        completion.push(state.index);
        blocked.push(state.index);
        changed = true;
      } else if (dependencies.every((dependency) => standingOf(states.get(dependency), input.resending) === 'succeeded')) {
        const timeout = plan.subtasks[state.index - 1]?.timeout_ms ?? input.fleetTimeoutMs;
        states.set(state.index, { ...state, deadline: input.now + input.delayMs + timeout });
        if (input.delayMs > 0) timeouts[state.index] = timeout + input.delayMs;
        ready.push(state.index);
      }
    }
  }
  return { memo: { ...memo, subtasks: [...states.values()], completion }, ready: ready.sort((a, b) => a - b), blocked, timeouts };
}

/** The result of a subtask that never ran because subtask `dependency` ended as `result` says. */
export function dependencyFailure(dependency: number, result: SubtaskResult, specialist: string, dispatchId: string): SubtaskResult {
  const ended = `subtask ${dependency}, which it depends on, ended ${result.status}`;
  return {
    message_id: dispatchId,
    specialist,
    status: 'failed',
    confidence: 0,
    reported_confidence: null,
    error_type: ERROR_TYPES.dependencyFailed,
    error_detail: result.error_type ? `${ended} (${result.error_type})` : ended,
    // A revision that runs the dependency again may help exactly when running it again may.
    recoverable: result.recoverable,
    artifacts: [],
    summary: `not run: ${ended}`,
    evidence_grade: null,
    surprise: null,
  };
}

/**
 * The work a subtask is handed in `task_data.upstream`: one entry per dependency, in `depends_on`
 * order, from its latest result; none for a subtask without dependencies.
 */
export function upstreamFor(plan: Plan, memo: DispatchMemo, index: number): UpstreamWork[] {
  return dependenciesOf(plan, index).flatMap((dependency) => {
    const result = memo.subtasks.find((state) => state.index === dependency)?.result;
    if (!result) return [];
    return [
      {
        subtask_index: dependency,
        message_id: result.message_id,
        task_type: plan.subtasks[dependency - 1]?.task_type ?? DEFAULT_TASK_TYPE,
        specialist: result.specialist,
        summary: result.summary,
        confidence: result.confidence,
        evidence_grade: result.evidence_grade,
        artifacts: result.artifacts,
      },
    ];
  });
}
