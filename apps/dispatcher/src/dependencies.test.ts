import type { Artifact, OutcomeStatus } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import { dependencyFailure, releaseDependents, startingSubtasks, upstreamFor, type ReleaseInput } from './dependencies.js';
import { initialMemo, type DispatchMemo, type SubtaskResult } from './dispatch-memo.js';

const draft: Artifact = { artifact_type: 'text', content_ref: null, inline_content: 'the draft', metadata: {} };

/** A plan of as many subtasks as `deps` has entries, each depending on the indices given. */
function planOf(deps: number[][], timeouts: Record<number, number> = {}): Plan {
  return {
    strategy: 'all_success',
    subtasks: deps.map((dependsOn, i) => ({
      objective: `step ${i + 1}`,
      task_type: i === 0 ? 'write' : 'analyse',
      ...(dependsOn.length > 0 ? { depends_on: dependsOn } : {}),
      ...(timeouts[i + 1] === undefined ? {} : { timeout_ms: timeouts[i + 1] }),
    })),
  };
}

function result(index: number, status: OutcomeStatus, recoverable: boolean | null = status === 'success' ? null : true): SubtaskResult {
  return {
    message_id: `d.0-${index - 1}`,
    specialist: `s${index}`,
    status,
    confidence: status === 'success' ? 0.9 : 0.1,
    reported_confidence: null,
    error_type: status === 'success' ? null : `e${index}`,
    error_detail: status === 'success' ? null : `broke ${index}`,
    recoverable,
    artifacts: status === 'success' ? [draft] : [],
    summary: `did ${index}`,
    evidence_grade: status === 'success' ? 'PP' : null,
    surprise: null,
  };
}

/** The memo of `plan` with the given latest results (in completion order), the others not yet sent. */
function memoWith(plan: Plan, results: [number, OutcomeStatus, boolean?][]): DispatchMemo {
  const memo = initialMemo(
    plan.strategy,
    plan.subtasks.map((_, i) => ({ specialist: `s${i + 1}`, alternates: [] })),
  );
  const byIndex = new Map(results.map(([index, status, recoverable]) => [index, result(index, status, recoverable)]));
  return {
    ...memo,
    subtasks: memo.subtasks.map((state) => ({ ...state, result: byIndex.get(state.index) ?? null })),
    completion: results.map(([index]) => index),
  };
}

const input = (resending: number[] = [], delayMs = 0): ReleaseInput => ({ resending: new Set(resending), now: 1_000, delayMs, fleetTimeoutMs: 30_000, dispatchId: 'd' });

describe('startingSubtasks', () => {
  it.each<[string, number[][], number[]]>([
    ['all of a plan without dependencies', [[], [], []], [1, 2, 3]],
    ['the head of a chain and the independent ones', [[], [1], [2], []], [1, 4]],
    ['the subtasks depended on, wherever they stand', [[3], [3], []], [3]],
  ])('%s', (_name, deps, expected) => {
    expect(startingSubtasks(planOf(deps))).toEqual(expected);
  });
});

describe('releaseDependents', () => {
  const chain = planOf([[], [1], [2], []]);
  const diamond = planOf([[], [1], [1], [2, 3]]);

  it.each<[string, Plan, [number, OutcomeStatus][], number[], number[], number[]]>([
    // name, plan, results so far, resending, ready, blocked
    [
      'a dependency succeeded: its dependent goes',
      chain,
      [
        [1, 'success'],
        [4, 'success'],
      ],
      [],
      [2],
      [],
    ],
    [
      'one step at a time down a chain',
      chain,
      [
        [1, 'success'],
        [4, 'success'],
        [2, 'success'],
      ],
      [],
      [3],
      [],
    ],
    [
      'a dependency sent again: its dependents wait',
      chain,
      [
        [1, 'failed'],
        [4, 'success'],
      ],
      [1],
      [],
      [],
    ],
    [
      'a dependency failed: the chain below it does not run',
      chain,
      [
        [4, 'success'],
        [1, 'failed'],
      ],
      [],
      [],
      [2, 3],
    ],
    [
      'a failure halfway down blocks only what follows',
      chain,
      [
        [1, 'success'],
        [4, 'success'],
        [2, 'timeout'],
      ],
      [],
      [],
      [3],
    ],
    [
      'partial is not success',
      chain,
      [
        [1, 'partial'],
        [4, 'success'],
      ],
      [],
      [],
      [2, 3],
    ],
    [
      'a diamond waits for both sides',
      diamond,
      [
        [1, 'success'],
        [2, 'success'],
      ],
      [],
      [3],
      [],
    ],
    [
      'a diamond joins once both sides succeeded',
      diamond,
      [
        [1, 'success'],
        [2, 'success'],
        [3, 'success'],
      ],
      [],
      [4],
      [],
    ],
    [
      'a diamond with one side failed does not join',
      diamond,
      [
        [1, 'success'],
        [3, 'failed'],
      ],
      [],
      [2],
      [4],
    ],
    ['both sides of a diamond go together', diamond, [[1, 'success']], [], [2, 3], []],
    [
      'nothing left to send',
      chain,
      [
        [1, 'success'],
        [2, 'success'],
        [3, 'success'],
        [4, 'success'],
      ],
      [],
      [],
      [],
    ],
  ])('%s', (_name, plan, results, resending, ready, blocked) => {
    const released = releaseDependents(plan, memoWith(plan, results), input(resending));
    expect(released.ready).toEqual(ready);
    expect(released.blocked).toEqual(blocked);
  });

  it('records what never ran as failed, dependency_failed, recoverable as its dependency was, at the end of the completion order', () => {
    const released = releaseDependents(
      chain,
      memoWith(chain, [
        [4, 'success'],
        [1, 'failed', false],
      ]),
      input(),
    );
    expect(released.memo.completion).toEqual([4, 1, 2, 3]);
    expect(released.memo.subtasks[1]?.result).toEqual({
      message_id: 'd',
      specialist: 's2',
      status: 'failed',
      confidence: 0,
      reported_confidence: null,
      error_type: 'dependency_failed',
      error_detail: 'subtask 1, which it depends on, ended failed (e1)',
      recoverable: false,
      artifacts: [],
      summary: 'not run: subtask 1, which it depends on, ended failed',
      evidence_grade: null,
      surprise: null,
    });
    // Transitively: subtask 3 names its own dependency, 2, which never ran.
    expect(released.memo.subtasks[2]?.result).toMatchObject({ error_type: 'dependency_failed', error_detail: 'subtask 2, which it depends on, ended failed (dependency_failed)', recoverable: false });
  });

  it('gives a released subtask its deadline from now, the round’s delay added to its time', () => {
    const plan = planOf([[], [1], [1]], { 2: 5_000 });
    const now = releaseDependents(plan, memoWith(plan, [[1, 'success']]), input());
    expect(now.memo.subtasks.map((state) => state.deadline)).toEqual([null, 6_000, 31_000]);
    expect(now.timeouts).toEqual({});
    const delayed = releaseDependents(plan, memoWith(plan, [[1, 'success']]), input([], 200));
    expect(delayed.memo.subtasks.map((state) => state.deadline)).toEqual([null, 6_200, 31_200]);
    expect(delayed.timeouts).toEqual({ 2: 5_200, 3: 30_200 });
  });

  it('leaves the memo as it was when nothing is released or blocked', () => {
    const memo = memoWith(chain, [
      [1, 'failed'],
      [4, 'success'],
    ]);
    expect(releaseDependents(chain, memo, input([1])).memo).toEqual(memo);
  });
});

describe('upstreamFor', () => {
  it('hands over each dependency’s latest work, in depends_on order', () => {
    const plan = planOf([[], [], [2, 1]]);
    const memo = memoWith(plan, [
      [1, 'success'],
      [2, 'success'],
    ]);
    expect(upstreamFor(plan, memo, 3)).toEqual([
      { subtask_index: 2, message_id: 'd.0-1', task_type: 'analyse', specialist: 's2', summary: 'did 2', confidence: 0.9, evidence_grade: 'PP', artifacts: [draft] },
      { subtask_index: 1, message_id: 'd.0-0', task_type: 'write', specialist: 's1', summary: 'did 1', confidence: 0.9, evidence_grade: 'PP', artifacts: [draft] },
    ]);
    expect(upstreamFor(plan, memo, 1)).toEqual([]);
  });
});

describe('dependencyFailure', () => {
  it('says how the dependency ended, without an error type when it had none', () => {
    expect(dependencyFailure(1, { ...result(1, 'cancelled'), error_type: null, recoverable: null }, 'sim', 'd')).toMatchObject({
      error_detail: 'subtask 1, which it depends on, ended cancelled',
      recoverable: null,
    });
  });
});
