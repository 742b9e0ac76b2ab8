import type { ErrorPolicy, OutcomeMessage } from '@tierflow/protocol';
import type { ObjectiveFile, RunNode } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import { useDeployment } from '../support/shared-deployment.js';
import { runToEnd, simPlan, treeNodes } from '../support/runs.js';

// The nine error-policy scenarios (docs/protocol.md#error-policies) over four worker processes:
// three situations, each under every strategy a sender may ask for. The Architect gives the
// Dispatcher 3 s, so the Dispatcher is the tier whose time runs out in the timeout scenarios.
const shared = useDeployment('error-policy', { TIERFLOW_LOG: 'silent', TIERFLOW_ANSWER_WAIT_MS: '0', TIERFLOW_DISPATCHER_TIMEOUT_MS: '3000' });

const run = (objective: ObjectiveFile) => runToEnd(shared.deployment.client, objective, 30_000);

const leaves = (tree: RunNode) => treeNodes(tree, 'SPECIALIZED_FLEET');
/** A leaf's outcome, as the Fleet sent it. */
const leafOutcome = async (node: RunNode): Promise<OutcomeMessage> => (await shared.fleet.getJob(node.id))!.returnvalue as OutcomeMessage;

describe('on_low_confidence: a leaf answers with confidence 0.2, under the cascade’s lowest bound', () => {
  const lowRun = (policy: ErrorPolicy, sim: Record<string, unknown> = {}) => ({ ...simPlan('all_success', [{ confidence: 0.2, ...sim }]), error_policy: policy });

  it('flag_and_continue: the work is used, flagged all the way up', async () => {
    const { outcome, tree } = await run(lowRun({ on_low_confidence: 'flag_and_continue' }));
    expect(outcome.payload).toMatchObject({ status: 'success', confidence: 0.2, cascade_check: { action: 'flag_uncertainty' } });
    expect(leaves(tree)).toHaveLength(1);
  });

  it('retry: sent once more with the concern attached, and the second answer is used', async () => {
    const { outcome, tree } = await run(lowRun({ on_low_confidence: 'retry' }, { concerned: { confidence: 0.9 } }));
    expect(outcome.payload).toMatchObject({ status: 'success', confidence: 0.9 });
    const [first, second] = leaves(tree);
    expect([first?.status, second?.status]).toEqual(['success', 'success']);
    const again = (await shared.fleet.getJob(second!.id))!.data as { payload: { task_data: { concern?: string } } };
    expect(again.payload.task_data.concern).toMatch(/^send it again with this concern: confidence 0\.20 of .* is under 0\.5$/);
    expect((await leafOutcome(first!)).payload.confidence).toBe(0.2);
  });

  it('escalate (the default): rejected, the Architect revises, the run fails', async () => {
    const { outcome } = await run(lowRun({ on_low_confidence: 'escalate' }));
    expect(outcome.payload.status).toBe('failed');
    expect((outcome.payload.resources_used as { revisions: number }).revisions).toBeGreaterThanOrEqual(1);
  });
});

describe('on_format_mismatch: a leaf answers with confidence 0.5, its schema asks for 0.8 or more', () => {
  const schema = { type: 'object', required: ['confidence'], properties: { confidence: { type: 'number', minimum: 0.8 } } };
  const mismatched = (policy: ErrorPolicy) => ({
    objective: 'a result of a set shape',
    task_data: {
      plan: {
        strategy: 'all_success' as const,
        subtasks: [{ objective: 'the part', expected_output_schema: schema, error_policy: policy, task_data: { sim: { confidence: 0.5, repaired: { confidence: 0.9 } } } }],
      },
    },
  });

  it('adapt: one repair pass mends it, within the same delivery', async () => {
    const { outcome, tree } = await run(mismatched({ on_format_mismatch: 'adapt' }));
    expect(outcome.payload.status).toBe('success');
    expect(leaves(tree)).toMatchObject([{ status: 'success', attempts: 1 }]);
    expect((await leafOutcome(leaves(tree)[0]!)).payload.confidence).toBe(0.9);
  });

  it('reject: failed for good, not retried or revised', async () => {
    const { outcome, tree } = await run(mismatched({ on_format_mismatch: 'reject' }));
    expect((await leafOutcome(leaves(tree)[0]!)).payload).toMatchObject({ status: 'failed', error_type: 'format_mismatch', recoverable: false });
    expect(outcome.payload).toMatchObject({ status: 'failed', recoverable: false, resources_used: { revisions: 0 } });
  });

  it('escalate: failed, recoverable, so the Architect revises before the run fails', async () => {
    const { outcome, tree } = await run(mismatched({ on_format_mismatch: 'escalate' }));
    expect((await leafOutcome(leaves(tree)[0]!)).payload).toMatchObject({ status: 'failed', error_type: 'format_mismatch', recoverable: true });
    expect(outcome.payload.status).toBe('failed');
    expect((outcome.payload.resources_used as { revisions: number }).revisions).toBeGreaterThanOrEqual(1);
  });
});

describe('on_timeout: the Dispatcher runs out of time with one leaf done and one still at work', () => {
  const slow = (policy: ErrorPolicy): ObjectiveFile => ({
    objective: 'two parts, one too slow',
    error_policy: policy,
    task_data: {
      plan: {
        strategy: 'all_success',
        subtasks: [
          { objective: 'quick', task_data: { sim: { output_bytes: 5 } } },
          { objective: 'slow', timeout_ms: 60_000, task_data: { sim: { delay_ms: 60_000 } } },
        ],
      },
    },
  });

  it('partial_result: the Dispatcher answers partial with what it has, and the run ends partial with it', async () => {
    const { outcome, tree } = await run(slow({ on_timeout: 'partial_result' }));
    expect(treeNodes(tree, 'ROUTING_DISPATCHER')[0]).toMatchObject({ status: 'partial' });
    expect(outcome.payload).toMatchObject({ status: 'partial' });
    expect(outcome.payload.artifacts.some((artifact) => artifact.artifact_type === 'text')).toBe(true);
  });

  it('escalate (the default): the Dispatcher answers timeout, and the run does not end partial', async () => {
    const { outcome, tree } = await run(slow({ on_timeout: 'escalate' }));
    expect(treeNodes(tree, 'ROUTING_DISPATCHER')[0]).toMatchObject({ status: 'timeout' });
    expect(outcome.payload.status).not.toBe('partial');
  });
});
