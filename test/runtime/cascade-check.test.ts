import type { OutcomeMessage } from '@tierflow/protocol';
import type { RunNode } from '@tierflow/runtime';
import { waitFor } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { startOtlpReceiver, tracingTo, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { simPlan } from '../support/runs.js';

// The confidence cascade check (docs/protocol.md#confidence-cascade) over real processes: a Fleet
// answer of falling confidence meets each of the four actions at the Dispatcher, and the root's
// outcome and the run's trace show which.
let receiver: OtlpReceiver;
let deployment: Deployment;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  deployment = await startDeployment('cascade', {
    TIERFLOW_LOG: 'silent',
    ...tracingTo(receiver, 'http/json'),
    OTEL_BSP_SCHEDULE_DELAY: '50',
  });
}, 60_000);

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
});

async function run(confidence: number): Promise<{ rootId: string; outcome: OutcomeMessage }> {
  const rootId = await deployment.client.enqueue(simPlan('all_success', [{ confidence }]));
  return { rootId, outcome: await deployment.client.waitForResult(rootId, { timeoutMs: 20_000 }) };
}

/**
 * The `confidence_cascade` events the Dispatcher's passes recorded for a root: on its aggregate
 * pass, or on the pass that delegated when the children answered before it could park (it then
 * reads the round itself).
 */
async function dispatcherChecks(rootId: string, count: number): Promise<Record<string, unknown>[]> {
  const spans = await waitFor(
    () => {
      const passes = new Set(['dispatcher aggregate', 'dispatcher process']);
      const mine = receiver.spans.filter((span: ReceivedSpan) => span.attributes['tierflow.root_id'] === rootId && passes.has(span.name));
      const events = mine.flatMap((span) => span.events.filter((event) => event.name === 'confidence_cascade'));
      return events.length >= count ? events : null;
    },
    { timeoutMs: 15_000, description: `${count} confidence_cascade events of ${rootId}` },
  );
  return spans.map((event) => event.attributes);
}

/** The run's Fleet leaf, as `tierflow status` and the dashboard get the tree. */
async function leaf(rootId: string): Promise<RunNode> {
  const walk = (node: RunNode): RunNode | undefined => (node.tier === 'SPECIALIZED_FLEET' ? node : node.children.map(walk).find(Boolean));
  return walk((await deployment.client.tree(rootId))!)!;
}

describe('the confidence cascade check', () => {
  it('proceeds with confident work, and says so', async () => {
    const { rootId, outcome } = await run(0.9);
    expect(outcome.payload).toMatchObject({ status: 'success', cascade_check: { action: 'proceed', checked_by: 'PROGRESS_MONITOR', confidence: 0.9 } });
    expect(await dispatcherChecks(rootId, 1)).toEqual([expect.objectContaining({ 'tierflow.cascade.action': 'proceed', 'tierflow.cascade.confidence': 0.9, 'tierflow.cascade.threshold': 0.8 })]);
  });

  it('flags uncertain work and uses it: the flag reaches the root', async () => {
    const { rootId, outcome } = await run(0.6);
    expect(outcome.payload).toMatchObject({ status: 'success', confidence: 0.6, cascade_check: { action: 'flag_uncertainty', threshold: 0.5 } });
    expect(await dispatcherChecks(rootId, 1)).toEqual([expect.objectContaining({ 'tierflow.cascade.action': 'flag_uncertainty', 'tierflow.cascade.confidence': 0.6 })]);
    // The tree people read marks the work that was flagged, and who flagged it.
    expect((await leaf(rootId)).cascade).toEqual({ signal: 'low_confidence', confidence: 0.6, threshold: 0.5, checked_by: 'ROUTING_DISPATCHER' });
  });

  it('holds doubtful work for review: the run asks a person instead of answering', async () => {
    const rootId = await deployment.client.enqueue(simPlan('all_success', [{ confidence: 0.4 }]));
    await waitFor(async () => (await deployment.client.tree(rootId))?.status === 'input_required', { timeoutMs: 15_000, description: 'the run to ask for a review' });
    const [question] = (await deployment.client.tree(rootId))!.questions!;
    expect(question).toMatchObject({ tier: 'ROUTING_DISPATCHER', question: expect.stringContaining('review needed before relying on it') as unknown });
    expect(await dispatcherChecks(rootId, 1)).toEqual([expect.objectContaining({ 'tierflow.cascade.action': 'needs_review', 'tierflow.cascade.checked_by': 'ROUTING_DISPATCHER' })]);
    expect((await leaf(rootId)).cascade).toMatchObject({ signal: 'needs_review', checked_by: 'ROUTING_DISPATCHER' });
    await deployment.client.cancel(rootId);
    expect((await deployment.client.waitForResult(rootId, { timeoutMs: 10_000 })).payload.status).toBe('cancelled');
  });

  it('rejects work it cannot trust and escalates it: the Architect revises, the Monitor resets, then the run fails', async () => {
    const { rootId, outcome } = await run(0.2);
    expect(outcome.payload).toMatchObject({
      status: 'failed',
      cascade_check: { action: 'reject_and_escalate', checked_by: 'ROUTING_DISPATCHER', confidence: 0.2, threshold: 0.3 },
      error_detail: expect.stringContaining('rejected and escalated') as unknown,
      resources_used: { revisions: 1, resets: 1 },
    });
    // Two attempts of the Monitor, each with an Architect revision: four Dispatcher rounds refused the work.
    const events = await dispatcherChecks(rootId, 4);
    expect(events.map((event) => event['tierflow.cascade.action'])).toEqual(Array(4).fill('reject_and_escalate'));
    expect((await leaf(rootId)).cascade).toMatchObject({ signal: 'rejected', confidence: 0.2, threshold: 0.3 });
  });
});
