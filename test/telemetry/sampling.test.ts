import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { startOtlpReceiver, tracingTo, type OtlpReceiver } from '../support/otlp-receiver.js';
import { simPlan } from '../support/runs.js';

// Monitor, Architect and Dispatcher each a first pass and an aggregate pass, and three leaves.
const SPANS_PER_ROOT = 9;
// Half the runs are sampled: the chance that all or none of them are is 2 in 2^24.
const ROOTS = 24;

describe('sampled tracing (OTEL_TRACES_SAMPLER=parentbased_traceidratio)', () => {
  let receiver: OtlpReceiver;
  let deployment: Deployment;
  const traceIds = new Map<string, string | null>();

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    deployment = await startDeployment('sampling', {
      TIERFLOW_LOG: 'silent',
      ...tracingTo(receiver),
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.5',
    });
    const { client } = deployment;
    const roots = await Promise.all(Array.from({ length: ROOTS }, () => client.enqueue(simPlan('all_success', [{}, {}, {}]))));
    for (const rootId of roots) {
      expect((await client.waitForResult(rootId, { timeoutMs: 30_000 })).payload.status).toBe('success');
      traceIds.set(rootId, await client.traceId(rootId));
    }
    // Stopping the workers flushes what their exporters still hold.
    await deployment.stop();
  }, 90_000);

  afterAll(async () => {
    await receiver?.close();
  });

  it('traces each run whole or not at all: the decision at the Monitor travels down with the work', () => {
    const spansOf = (rootId: string) => receiver.spans.filter((span) => span.attributes['tierflow.root_id'] === rootId);
    const counts = [...traceIds.keys()].map((rootId) => spansOf(rootId).length);
    expect(
      counts.every((count) => count === 0 || count === SPANS_PER_ROOT),
      `spans per run: ${counts.join(', ')}`,
    ).toBe(true);
    expect(counts).toContain(0);
    expect(counts).toContain(SPANS_PER_ROOT);
    for (const [rootId, traceId] of traceIds) {
      const spans = spansOf(rootId);
      // `tierflow trace` finds a trace only for a run that has one.
      expect(traceId).toBe(spans.length > 0 ? spans[0]!.traceId : null);
      expect(new Set(spans.map((span) => span.traceId)).size).toBeLessThanOrEqual(1);
    }
  });
});
