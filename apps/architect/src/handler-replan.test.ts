import { outcomePayloadSchema, type DelegationPayloadInput } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import type { PlanRequest, Planner } from '@tierflow/runtime/policy';
import { FakeBeads, delegated, delegationTo, fakeContext, reported, settle } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { dispatcherReply } from './dispatcher-reply.js';
import { architectHandler } from './handler.js';
import type { ArchitectOptionsInput } from './options.js';

// A revision that asks the planner again with the failure in hand (docs/protocol.md#revisions).
const plan: Plan = {
  strategy: 'all_success',
  subtasks: [{ objective: 'write code', task_type: 'execute_code' }, { objective: 'write tests', task_type: 'test' }, { objective: 'review' }],
};
// What a planner makes of the two failures: two alternatives to race, by other specialists.
const replanned: Plan = {
  strategy: 'first_success',
  subtasks: [
    { objective: 'write code and tests together', specialist_hint: 'python-lora' },
    { objective: 'write code and tests, simpler', specialist_hint: 'sim' },
  ],
};

function setup(planner: Planner, options: ArchitectOptionsInput = {}, taskData: DelegationPayloadInput['task_data'] = { language: 'python' }) {
  const assignment = delegationTo('ABSTRACT_ARCHITECT', 'r1.0-0', { task_type: 'solve', objective: 'binary search', task_data: taskData });
  return { assignment, context: fakeContext(assignment, new FakeBeads('ABSTRACT_ARCHITECT')), handler: architectHandler({ planner, ...options }) };
}

/** A planner that plans `plan` first and answers each revision with `revised`, recording what it was asked. */
function recording(revised: (request: PlanRequest) => unknown) {
  const requests: PlanRequest[] = [];
  const planner: Planner = (request) => {
    requests.push(request);
    return Promise.resolve(request.revision ? revised(request) : plan);
  };
  return { requests, planner };
}

const firstRound = () =>
  dispatcherReply('all_success', [
    ['failed', 0.2, 'code-lora'],
    ['failed', 0.1, 'test-lora'],
    ['success', 0.9, 'reviewer'],
  ]);

describe('a revision with a planner', () => {
  it('asks the planner with the failure in hand, runs the plan it returns, and keeps what succeeded', async () => {
    const { requests, planner } = recording(() => replanned);
    const { assignment, context, handler } = setup(planner);
    const first = delegated(await handler.start(context));
    const second = delegated(await handler.resume!(context, settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, firstRound)));

    expect(requests).toHaveLength(2);
    expect(requests[1]?.revision).toEqual({
      round: 1,
      plan,
      redo: [1, 2],
      failed: [
        {
          subtask_index: 1,
          description: 'write code',
          task_type: 'execute_code',
          specialist: 'code-lora',
          tried: ['code-lora'],
          error_type: 'execution_error',
          summary: 'subtask 1 broke',
          attempts: 1,
        },
        { subtask_index: 2, description: 'write tests', task_type: 'test', specialist: 'test-lora', tried: ['test-lora'], error_type: 'execution_error', summary: 'subtask 2 broke', attempts: 1 },
      ],
      succeeded: [{ subtask_index: 3, specialist: 'reviewer', summary: 'done' }],
    });
    // The new plan runs whole, in place of the two failed subtasks; the review is kept.
    expect(second.children[0]?.task_data).toEqual({ language: 'python', plan: replanned });
    expect(second.memo).toMatchObject({
      revisions: 1,
      plan: replanned,
      delegated: [1, 2],
      kept: [],
      kept_artifacts: [{ inline_content: 'by d.0-2' }],
      outer: [{ plan, kept: [{ message_id: 'd.0-2', subtask_index: 3 }], replaced: [1, 2] }],
    });

    // One alternative wins the race: the new plan succeeds, so the whole objective does.
    const round1 = settle(assignment, 'ABSTRACT_ARCHITECT', second, 1, () =>
      dispatcherReply(
        'first_success',
        [
          ['success', 0.8, 'sim'],
          ['cancelled', 0, 'python-lora'],
        ],
        'd.1',
      ),
    );
    const outcome = outcomePayloadSchema.parse({ ...reported(await handler.resume!(context, round1)), execution_time_ms: 3 });
    expect(outcome).toMatchObject({ status: 'success', resources_used: { revisions: 1 } });
    expect(outcome.artifacts.slice(1).map((artifact) => artifact.inline_content)).toEqual(['by d.0-2', 'by d.1-0']);
    // The summary speaks of the plan the run began with: the review kept, the new plan's aggregate standing for 1 and 2.
    expect(outcome.artifacts[0]?.metadata).toMatchObject({
      child_outcomes: [
        { id: 'd.0-2', status: 'success', subtask_index: 3 },
        { id: round1.children[0]!.id, specialist: '', status: 'success', subtask_index: 1 },
        { id: round1.children[0]!.id, specialist: '', status: 'success', subtask_index: 2 },
      ],
      revisions: 1,
      replans: 1,
    });
  });

  it('reports the new plan’s failure as the failure of what it replaced, under the first plan’s strategy', async () => {
    const { planner } = recording(() => replanned);
    const { assignment, context, handler } = setup(planner);
    const first = delegated(await handler.start(context));
    const second = delegated(await handler.resume!(context, settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, firstRound)));
    const round1 = settle(assignment, 'ABSTRACT_ARCHITECT', second, 1, () =>
      dispatcherReply(
        'first_success',
        [
          ['failed', 0.3, 'sim'],
          ['failed', 0.2, 'python-lora'],
        ],
        'd.1',
      ),
    );
    const outcome = reported(await handler.resume!(context, round1));
    // all_success over the review (kept) and the failed new plan standing for subtasks 1 and 2: 1 of 3.
    expect(outcome).toMatchObject({ status: 'partial', error_type: 'majority_failed', resources_used: { revisions: 1 } });
  });

  it('revises a new plan again within it, and asks the planner about its subtasks', async () => {
    let revisions = 0;
    const { requests, planner } = recording(() => (++revisions === 1 ? replanned : null));
    const { assignment, context, handler } = setup(planner, { maxRevisions: 2 });
    const first = delegated(await handler.start(context));
    const second = delegated(await handler.resume!(context, settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, firstRound)));
    const round1 = settle(assignment, 'ABSTRACT_ARCHITECT', second, 1, () =>
      dispatcherReply(
        'first_success',
        [
          ['failed', 0.3, 'python-lora'],
          ['failed', 0.2, 'sim'],
        ],
        'd.1',
      ),
    );
    // The planner leaves the second revision to the Architect: the new plan again, each subtask avoiding who failed it.
    const third = delegated(await handler.resume!(context, round1));
    expect(requests[2]?.revision).toMatchObject({ round: 2, plan: replanned, redo: [1, 2], succeeded: [] });
    expect(third.children[0]?.task_data?.plan).toEqual({
      strategy: 'first_success',
      subtasks: [
        { ...replanned.subtasks[0], avoid_specialists: ['python-lora'] },
        { ...replanned.subtasks[1], avoid_specialists: ['sim'] },
      ],
    });
    const round2 = settle(assignment, 'ABSTRACT_ARCHITECT', third, 2, () => dispatcherReply('first_success', [['success', 0.7, 'other']], 'd.2'));
    const outcome = reported(await handler.resume!(context, round2));
    expect(outcome).toMatchObject({ status: 'success', resources_used: { revisions: 2 } });
  });

  it('revises without the planner when it gives no valid plan for the revision', async () => {
    const warnings: string[] = [];
    const { planner } = recording(() => ({ strategy: 'all_success', subtasks: [] }));
    const { assignment, context, handler } = setup(planner);
    const logged = { ...context, log: { info: () => undefined, warn: (message: string) => void warnings.push(message) } };
    const first = delegated(await handler.start(logged));
    const second = delegated(await handler.resume!(logged, settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, firstRound)));
    expect(warnings).toEqual(['the planner proposed no valid plan for the revision; revising without it']);
    expect(second.children[0]?.task_data?.plan).toEqual({
      strategy: 'all_success',
      subtasks: [
        { ...plan.subtasks[0], avoid_specialists: ['code-lora'] },
        { ...plan.subtasks[1], avoid_specialists: ['test-lora'] },
      ],
    });
    expect(second.memo).toMatchObject({ outer: [], delegated: [1, 2] });
  });

  it('asks the planner on a revision of a plan the objective came with, which it was not asked to plan', async () => {
    const { requests, planner } = recording(() => replanned);
    const { assignment, context, handler } = setup(planner, {}, { plan });
    const first = delegated(await handler.start(context));
    expect(requests).toHaveLength(0);
    const second = delegated(await handler.resume!(context, settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, firstRound)));
    expect(requests[0]?.revision?.plan).toEqual(plan);
    expect(second.children[0]?.task_data).toEqual({ plan: replanned });
  });
});
