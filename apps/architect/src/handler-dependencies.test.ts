import { outcomePayloadSchema } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import { FakeBeads, delegated, delegationTo, fakeContext, reported, settle } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { dispatcherReply } from './dispatcher-reply.js';
import { architectHandler } from './handler.js';

// A revision of a plan whose subtasks depend on each other (docs/protocol.md#subtask-dependencies):
// 1 drafts, 2 reviews the draft, 3 summarises the review; 4 stands alone.
const plan: Plan = {
  strategy: 'all_success',
  subtasks: [{ objective: 'draft' }, { objective: 'review', depends_on: [1] }, { objective: 'summarise', depends_on: [2] }, { objective: 'figures' }],
};

function setup() {
  const beads = new FakeBeads('ABSTRACT_ARCHITECT');
  const assignment = delegationTo('ABSTRACT_ARCHITECT', 'r1.0-0', { task_type: 'solve', objective: 'a report', task_data: { plan } });
  return { assignment, context: fakeContext(assignment, beads), handler: architectHandler() };
}

describe('a revision over dependencies', () => {
  it('sends again what a failed subtask depends on, renumbered, keeps only the rest, and carries each piece of work once', async () => {
    const { assignment, context, handler } = setup();
    const first = delegated(await handler.start(context));
    // The review failed, so its summary never ran; the draft and the figures succeeded.
    const round0 = settle(assignment, 'ABSTRACT_ARCHITECT', first, 0, () =>
      dispatcherReply('all_success', [
        ['success', 0.9],
        ['failed', 0.2],
        ['failed', 0],
        ['success', 0.8],
      ]),
    );
    const second = delegated(await handler.resume!(context, round0));
    expect(second.children[0]?.task_data).toEqual({
      // The failed ones avoid the specialists that failed them; the draft, sent again for its work, does not.
      plan: {
        strategy: 'all_success',
        subtasks: [{ objective: 'draft' }, { objective: 'review', depends_on: [1], avoid_specialists: ['s2'] }, { objective: 'summarise', depends_on: [2], avoid_specialists: ['s3'] }],
      },
    });
    expect(second.memo).toMatchObject({
      revisions: 1,
      delegated: [1, 2, 3],
      kept: [{ message_id: 'd.0-3', subtask_index: 4 }],
      // The draft runs again, so its first version is not kept beside the new one.
      kept_artifacts: [{ inline_content: 'by d.0-3' }],
    });

    const round1 = settle(assignment, 'ABSTRACT_ARCHITECT', second, 1, () =>
      dispatcherReply(
        'all_success',
        [
          ['success', 0.9],
          ['success', 0.9],
          ['success', 0.9],
        ],
        'd.1',
      ),
    );
    const outcome = outcomePayloadSchema.parse({ ...reported(await handler.resume!(context, round1)), execution_time_ms: 3 });
    expect(outcome).toMatchObject({ status: 'success', resources_used: { revisions: 1 } });
    expect(outcome.artifacts.slice(1).map((artifact) => artifact.inline_content)).toEqual(['by d.0-3', 'by d.1-0', 'by d.1-1', 'by d.1-2']);
    expect((outcome.artifacts[0]?.metadata.child_outcomes as { subtask_index: number }[]).map((row) => row.subtask_index)).toEqual([4, 1, 2, 3]);
  });
});
