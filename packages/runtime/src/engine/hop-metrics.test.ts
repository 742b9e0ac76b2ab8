import { metrics } from '@opentelemetry/api';
import { TierflowError } from '@tierflow/protocol';
import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { MeterProvider, MetricReader, type Histogram as HistogramPoint } from '@opentelemetry/sdk-metrics';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveRuntimeOptions } from '../config/options.js';
import { buildDelegation } from '../messages/messages.js';
import type { TierHandler } from '../policy/handler.js';
import { startFleetHarness } from './fleet-harness.js';

// A real Fleet worker in this process, its passes recorded into an in-memory reader.
const db = usePrivateRedis();

class TestReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** Metric `name`'s points as `[attributes, count or value]`. */
async function figures(reader: MetricReader, name: string): Promise<[Record<string, unknown>, number][]> {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((found) => found.descriptor.name === name);
  return (metric?.dataPoints ?? []).map((point) => [point.attributes, typeof point.value === 'number' ? point.value : (point.value as HistogramPoint).count]);
}

describe("a worker's passes in its metrics", () => {
  let reader: TestReader;
  let provider: MeterProvider;
  beforeEach(() => {
    reader = new TestReader();
    provider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
  });
  afterEach(async () => {
    metrics.disable();
    await provider.shutdown();
  });

  it('records each pass once, by how it ended, each retry, and the time queued once per delegation', async () => {
    const runtime = resolveRuntimeOptions({ redisUrl: db.server.url, prefix: uniquePrefix('hop-metrics'), retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 10 } });
    const seen = new Map<string, number>();
    const handler: TierHandler = {
      tier: 'SPECIALIZED_FLEET',
      start: (context) => {
        const id = context.assignment.id;
        seen.set(id, (seen.get(id) ?? 0) + 1);
        // "flaky" fails once and then succeeds; "broken" fails for good.
        if (context.assignment.payload.objective === 'flaky' && seen.get(id) === 1) throw TierflowError.retryable('not yet');
        if (context.assignment.payload.objective === 'broken') throw TierflowError.permanent('no', { code: 'model_unreachable' });
        return Promise.resolve({ kind: 'outcome', outcome: { status: 'success', summary: 'done', confidence: 0.9 } });
      },
    };
    const harness = await startFleetHarness(handler, runtime);
    try {
      for (const [id, objective] of [
        ['m-1', 'fine'],
        ['m-2', 'flaky'],
        ['m-3', 'broken'],
      ] as const)
        await harness.send(buildDelegation('ROUTING_DISPATCHER', id, null, { task_type: 'general', objective }, Date.now()));
      expect(await figures(reader, 'tierflow.hop.duration')).toEqual([
        [{ 'tierflow.tier': 'fleet', 'tierflow.status': 'success' }, 2],
        [{ 'tierflow.tier': 'fleet', 'tierflow.status': 'retrying' }, 1],
        [{ 'tierflow.tier': 'fleet', 'tierflow.status': 'failed', 'error.type': 'model_unreachable' }, 1],
      ]);
      expect(await figures(reader, 'tierflow.retries')).toEqual([[{ 'tierflow.tier': 'fleet' }, 1]]);
      expect(await figures(reader, 'tierflow.hop.queued')).toEqual([[{ 'tierflow.tier': 'fleet' }, 3]]);
      // Not a root: no run finished here.
      expect(await figures(reader, 'tierflow.runs.finished')).toEqual([]);
      expect(await figures(reader, 'tierflow.worker.jobs.running')).toEqual([[{ 'tierflow.tier': 'fleet' }, 0]]);
    } finally {
      await harness.close();
    }
  });
});
