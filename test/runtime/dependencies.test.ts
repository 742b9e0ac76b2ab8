import type { DelegationMessage, UpstreamWork } from '@tierflow/protocol';
import { readAuditTrail } from '@tierflow/runtime/admin';
import { type ObjectiveFile, type RunNode, type Subtask } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import { useDeployment } from '../support/shared-deployment.js';
import { runToEnd, treeNodes } from '../support/runs.js';

// Subtask dependencies (docs/protocol.md#subtask-dependencies) over four worker processes: a
// dependent subtask is sent once its dependencies succeeded, carrying their work; a failed
// dependency keeps its dependents from running; a revision runs the chain again.
const shared = useDeployment('dependencies', { TIERFLOW_LOG: 'silent', TIERFLOW_ANSWER_WAIT_MS: '0' });

const run = (objective: ObjectiveFile) => runToEnd(shared.deployment.client, objective);

function pipeline(subtasks: Subtask[], extra: Partial<ObjectiveFile> = {}): ObjectiveFile {
  return { objective: 'a reviewed report', task_data: { plan: { strategy: 'all_success', subtasks } }, ...extra };
}

const draft: Subtask = { objective: 'draft', task_type: 'write', task_data: { sim: { output_bytes: 40 } } };
const review: Subtask = { objective: 'review', task_type: 'analyse', depends_on: [1] };
const summary: Subtask = { objective: 'summarise', task_type: 'summarise', depends_on: [2] };
const figures: Subtask = { objective: 'figures', task_type: 'fetch' };

/** What the Fleet was asked for one delegation: its job's data. */
async function fleetRequest(id: string): Promise<DelegationMessage> {
  const job = await shared.fleet.getJob(id);
  if (!job) throw new Error(`no Fleet job ${id}`);
  return job.data as DelegationMessage;
}

const upstreamOf = (request: DelegationMessage): UpstreamWork[] => request.payload.task_data.upstream as UpstreamWork[];
/** The task types of the work that reached the Fleet: each subtask here has its own. */
const kinds = (nodes: readonly RunNode[]): string[] => nodes.map((node) => node.task_type);

describe('a chain of subtasks', () => {
  it('runs 1 → 2 → 3 in order beside an independent 4, each handed the work before it', async () => {
    const { id, outcome, tree } = await run(pipeline([draft, review, summary, figures]));
    expect(outcome.payload.status).toBe('success');
    const dispatch = `${id}.0-0.0-0`;
    // Round 0 sends the draft and the figures, round 1 the review, round 2 the summary.
    const leaves = { draft: `${dispatch}.0-0`, figures: `${dispatch}.0-1`, review: `${dispatch}.1-0`, summary: `${dispatch}.2-0` };
    expect(treeNodes(tree, 'SPECIALIZED_FLEET').map((node) => node.id)).toEqual(expect.arrayContaining(Object.values(leaves)));
    expect(treeNodes(tree, 'SPECIALIZED_FLEET')).toHaveLength(4);

    // The review was sent only after the draft's outcome came back.
    const trail = await readAuditTrail(shared.redis, shared.deployment.runtime.prefix, id);
    const draftReceived = trail.findIndex((entry) => entry.by === 'ROUTING_DISPATCHER' && entry.kind === 'outcome' && entry.direction === 'received' && entry.correlation_id === leaves.draft);
    const reviewSent = trail.findIndex((entry) => entry.by === 'ROUTING_DISPATCHER' && entry.kind === 'delegation' && entry.direction === 'sent' && entry.id === leaves.review);
    expect(draftReceived).toBeGreaterThanOrEqual(0);
    expect(reviewSent).toBeGreaterThan(draftReceived);

    // The summary was handed the review's work, which had been handed the draft's.
    const [reviewed] = upstreamOf(await fleetRequest(leaves.summary));
    expect(reviewed).toMatchObject({ subtask_index: 2, message_id: leaves.review, task_type: 'analyse', specialist: 'sim', summary: 'sim: success on attempt 1, given the work of subtask 1' });
    expect(upstreamOf(await fleetRequest(leaves.review))).toEqual([
      expect.objectContaining({ subtask_index: 1, message_id: leaves.draft, task_type: 'write', artifacts: [expect.objectContaining({ artifact_type: 'text' })] }),
    ]);
    expect(upstreamOf(await fleetRequest(leaves.figures))).toBeUndefined();
    // And the root's outcome carries what each sim was handed.
    const handed = outcome.payload.artifacts.filter((artifact) => artifact.artifact_type === 'upstream').map((artifact) => JSON.parse(artifact.inline_content!) as unknown);
    expect(handed).toEqual(
      expect.arrayContaining([
        [{ subtask_index: 1, specialist: 'sim', summary: 'sim: success on attempt 1 with 40 bytes of output', artifacts: 1 }],
        [{ subtask_index: 2, specialist: 'sim', summary: 'sim: success on attempt 1, given the work of subtask 1', artifacts: 1 }],
      ]),
    );
  });

  it('hands a dependent the answer of a dependency sent again with a concern, not the first one', async () => {
    const doubtful: Subtask = { ...draft, task_data: { sim: { confidence: 0.2, concerned: { confidence: 0.9 } } }, error_policy: { on_low_confidence: 'retry' } };
    const { id, outcome } = await run(pipeline([doubtful, review]));
    expect(outcome.payload.status).toBe('success');
    const dispatch = `${id}.0-0.0-0`;
    expect(upstreamOf(await fleetRequest(`${dispatch}.2-0`))).toEqual([expect.objectContaining({ subtask_index: 1, message_id: `${dispatch}.1-0`, confidence: 0.9 })]);
  });
});

describe('a failed dependency', () => {
  it('keeps its dependents from running: they answer dependency_failed', async () => {
    const broken: Subtask = { ...draft, task_data: { sim: { permanent_error: true } } };
    const { outcome, tree } = await run(pipeline([broken, review, summary, figures]));
    expect(outcome.payload.status).not.toBe('success');
    expect(outcome.payload.error_detail).toContain('subtask 1, which it depends on, ended failed (sim_permanent)');
    expect(outcome.payload.error_detail).toContain('subtask 2, which it depends on, ended failed (dependency_failed)');
    // Neither the review nor the summary reached the Fleet, in any round.
    expect(kinds(treeNodes(tree, 'SPECIALIZED_FLEET'))).not.toContain('analyse');
    expect(kinds(treeNodes(tree, 'SPECIALIZED_FLEET'))).not.toContain('summarise');
  });

  it('is run again with its chain when the Architect revises', async () => {
    const rejected: Subtask = { ...review, task_data: { sim: { status: 'failed' } } };
    const { id, outcome, tree } = await run(pipeline([draft, rejected, summary, figures]));
    expect(outcome.payload).toMatchObject({ status: 'partial', resources_used: { revisions: 1 } });
    const [first, second] = treeNodes(tree, 'ROUTING_DISPATCHER');
    expect(kinds(first?.children ?? []).sort()).toEqual(['analyse', 'fetch', 'write']);
    // The revision sends the draft again, so the review has its input: the new draft, renumbered.
    expect(kinds(second?.children ?? []).sort()).toEqual(['analyse', 'write']);
    const revision = `${id}.0-0.1-0`;
    expect(upstreamOf(await fleetRequest(`${revision}.1-0`))).toEqual([expect.objectContaining({ subtask_index: 1, message_id: `${revision}.0-0` })]);
    expect(kinds(treeNodes(tree, 'SPECIALIZED_FLEET'))).not.toContain('summarise');
    // The draft's work appears once, from the revision.
    const texts = outcome.payload.artifacts.filter((artifact) => artifact.artifact_type === 'text');
    expect(texts).toHaveLength(1);
  });
});
