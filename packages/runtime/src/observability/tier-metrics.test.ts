import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type Histogram as HistogramPoint } from '@opentelemetry/sdk-metrics';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOP_BUCKETS_S, tierInstruments, watchRunning } from './tier-instruments.js';
import { budgetStopped, deadLettered, errorTypeLabel, hopEnded, hopQueued, questionsAsked, questionWaited, recordEscalations, recordRevision, retried, runFinished } from './tier-metrics.js';

/** A reader collected by hand. */
class TestReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** Each point of metric `name`: its attributes and its value (a histogram's count and sum). */
async function points(reader: MetricReader, name: string): Promise<{ attributes: Record<string, unknown>; value: unknown }[]> {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((found) => found.descriptor.name === name);
  return (metric?.dataPoints ?? []).map((point) => ({
    attributes: point.attributes,
    value: typeof point.value === 'number' ? point.value : { count: (point.value as HistogramPoint).count, sum: (point.value as HistogramPoint).sum },
  }));
}

describe('the tier metrics, recorded into an in-memory reader', () => {
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

  it('times hops by tier and how they ended, with a bounded error type', async () => {
    hopEnded('SPECIALIZED_FLEET', { status: 'success', errorType: null }, 0.2);
    hopEnded('SPECIALIZED_FLEET', { status: 'success', errorType: null }, 0.4);
    hopEnded('SPECIALIZED_FLEET', { status: 'failed', errorType: 'retries_exhausted' }, 1);
    hopEnded('SPECIALIZED_FLEET', { status: 'failed', errorType: 'my_own_code' }, 1);
    hopEnded('ROUTING_DISPATCHER', 'parked', -0.001);
    expect(await points(reader, 'tierflow.hop.duration')).toEqual([
      { attributes: { 'tierflow.tier': 'fleet', 'tierflow.status': 'success' }, value: { count: 2, sum: expect.closeTo(0.6) as number } },
      { attributes: { 'tierflow.tier': 'fleet', 'tierflow.status': 'failed', 'error.type': 'retries_exhausted' }, value: { count: 1, sum: 1 } },
      { attributes: { 'tierflow.tier': 'fleet', 'tierflow.status': 'failed', 'error.type': '_OTHER' }, value: { count: 1, sum: 1 } },
      // A clock a little behind another host's: no time, not a negative one.
      { attributes: { 'tierflow.tier': 'dispatcher', 'tierflow.status': 'parked' }, value: { count: 1, sum: 0 } },
    ]);
  });

  it('uses buckets suited to seconds-long hops', async () => {
    hopQueued('ABSTRACT_ARCHITECT', 3);
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics[0]!.metrics.find((found) => found.descriptor.name === 'tierflow.hop.queued')!;
    expect(metric.descriptor).toMatchObject({ unit: 's' });
    expect((metric.dataPoints[0]!.value as HistogramPoint).buckets.boundaries).toEqual(HOP_BUCKETS_S);
  });

  it('counts runs by status and times them', async () => {
    runFinished('success', 2);
    runFinished('success', 3);
    runFinished('failed', 1);
    expect(await points(reader, 'tierflow.runs.finished')).toEqual([
      { attributes: { 'tierflow.status': 'success' }, value: 2 },
      { attributes: { 'tierflow.status': 'failed' }, value: 1 },
    ]);
    expect(await points(reader, 'tierflow.run.duration')).toEqual([
      { attributes: { 'tierflow.status': 'success' }, value: { count: 2, sum: 5 } },
      { attributes: { 'tierflow.status': 'failed' }, value: { count: 1, sum: 1 } },
    ]);
  });

  it('counts retries, escalations, revisions, questions, budget stops and dead letters with their labels', async () => {
    retried('SPECIALIZED_FLEET');
    recordEscalations('ROUTING_DISPATCHER', 2);
    recordEscalations('PROGRESS_MONITOR');
    recordEscalations('PROGRESS_MONITOR', 0);
    recordRevision();
    questionsAsked('ABSTRACT_ARCHITECT', 3);
    questionWaited('ABSTRACT_ARCHITECT', 60);
    budgetStopped('max_tokens');
    deadLettered('ROUTING_DISPATCHER', 'signature_invalid: no key');
    deadLettered('ROUTING_DISPATCHER', 'invalid message: $.payload: required');
    expect(await points(reader, 'tierflow.retries')).toEqual([{ attributes: { 'tierflow.tier': 'fleet' }, value: 1 }]);
    expect(await points(reader, 'tierflow.escalations')).toEqual([
      { attributes: { 'tierflow.tier': 'dispatcher' }, value: 2 },
      { attributes: { 'tierflow.tier': 'monitor' }, value: 1 },
    ]);
    expect(await points(reader, 'tierflow.revisions')).toEqual([{ attributes: {}, value: 1 }]);
    expect(await points(reader, 'tierflow.questions')).toEqual([{ attributes: { 'tierflow.tier': 'architect' }, value: 3 }]);
    expect(await points(reader, 'tierflow.question.wait')).toEqual([{ attributes: { 'tierflow.tier': 'architect' }, value: { count: 1, sum: 60 } }]);
    expect(await points(reader, 'tierflow.budget.stops')).toEqual([{ attributes: { 'tierflow.budget': 'max_tokens' }, value: 1 }]);
    expect(await points(reader, 'tierflow.dead_letters')).toEqual([
      { attributes: { 'tierflow.tier': 'dispatcher', 'error.type': 'signature_invalid' }, value: 1 },
      { attributes: { 'tierflow.tier': 'dispatcher', 'error.type': 'invalid_message' }, value: 1 },
    ]);
  });

  it("gauges the jobs the process's workers run, by tier, while they are watched", async () => {
    let running = 2;
    const stopA = watchRunning('fleet', () => running);
    const stopB = watchRunning('fleet', () => 1);
    expect(await points(reader, 'tierflow.worker.jobs.running')).toEqual([{ attributes: { 'tierflow.tier': 'fleet' }, value: 3 }]);
    running = 0;
    stopB();
    expect(await points(reader, 'tierflow.worker.jobs.running')).toEqual([{ attributes: { 'tierflow.tier': 'fleet' }, value: 0 }]);
    stopA();
  });

  it('makes its instruments again for a provider registered later: none stays a no-op', async () => {
    metrics.disable();
    hopQueued('SPECIALIZED_FLEET', 1); // made from the no-op provider
    metrics.setGlobalMeterProvider(provider);
    hopQueued('SPECIALIZED_FLEET', 1);
    expect(await points(reader, 'tierflow.hop.queued')).toEqual([{ attributes: { 'tierflow.tier': 'fleet' }, value: { count: 1, sum: 1 } }]);
    expect(tierInstruments()).toBe(tierInstruments());
  });
});

describe('errorTypeLabel', () => {
  it("keeps Tierflow's codes and folds the rest into _OTHER", () => {
    expect(['timeout', 'budget_exceeded', 'sim_permanent', ''].map(errorTypeLabel)).toEqual(['timeout', 'budget_exceeded', '_OTHER', '_OTHER']);
  });
});
