import { MeterProvider, type MetricReader } from '@opentelemetry/sdk-metrics';
import { uniquePrefix } from '@tierflow/testing';
import { usePrivateRedis } from '@tierflow/testing/vitest';
import { describe, expect, it } from 'vitest';
import { metricStoreKeys, minuteOf, readStoreMinutes, readStoreTotals, writeToStore } from './metric-store.js';
import { metricStoreReader } from './redis-exporter.js';
import { cumulativeBuckets, seriesOf } from './store-read.js';
import { gaugeGroups } from './store-write.js';

// The exporter under a real MeterProvider, writing into a real Redis, read back by the readers.

const NOW = Date.UTC(2030, 0, 1, 12, 30, 15);

/** A "process": a MeterProvider whose only reader exports into the store, flushed by hand. */
function worker(options: { redis: Parameters<typeof metricStoreReader>[0]['redis']; prefix: string; writer?: 'fleet' | 'monitor'; now?: () => number; totalsFieldCap?: number }) {
  const reader: MetricReader = metricStoreReader({
    redis: options.redis,
    prefix: options.prefix,
    writer: options.writer ?? 'fleet',
    now: options.now ?? (() => NOW),
    intervalMs: 300_000,
    ...(options.totalsFieldCap === undefined ? {} : { limits: { minuteTtlMs: 60_000, totalsFieldCap: options.totalsFieldCap, minuteFieldCap: options.totalsFieldCap } }),
  });
  const provider = new MeterProvider({ readers: [reader] });
  const meter = provider.getMeter('@tierflow/runtime');
  return { provider, meter, flush: () => provider.forceFlush(), stop: () => provider.shutdown() };
}

describe('the metric store, on a real Redis', () => {
  const db = usePrivateRedis();

  it('gives back what two processes recorded, as deltas added up, in the totals and the minute', async () => {
    const prefix = uniquePrefix('{metrics}');
    const runtime = { prefix, cells: 1 };
    const processes = [worker({ redis: db.redis, prefix }), worker({ redis: db.redis, prefix, writer: 'monitor' })];
    for (const [index, { meter }] of processes.entries()) {
      meter.createCounter('tierflow.runs.finished', { unit: '{run}', description: 'Runs finished' }).add(2 + index, { 'tierflow.status': 'success' });
      meter.createHistogram('tierflow.hop.duration', { unit: 's', advice: { explicitBucketBoundaries: [0.1, 1, 10] } }).record(0.5 + index * 5, { 'tierflow.tier': 'fleet' });
      meter.createUpDownCounter('tierflow.open').add(3);
      meter.createObservableGauge('tierflow.worker.jobs.running').addCallback((result) => result.observe(4 + index, { 'service.instance.id': `host:${index}` }));
    }
    await Promise.all(processes.map((process) => process.flush()));
    // A second export of the first: only what it recorded since (a delta).
    processes[0]!.meter.createCounter('tierflow.runs.finished').add(1, { 'tierflow.status': 'failed' });
    await processes[0]!.flush();

    const totals = await readStoreTotals(db.redis, runtime);
    expect(seriesOf(totals, 'tierflow.runs.finished').map((series) => [series.attributes, series.value])).toEqual([
      [{ 'tierflow.status': 'failed' }, 1],
      [{ 'tierflow.status': 'success' }, 5],
    ]);
    const [hop] = seriesOf(totals, 'tierflow.hop.duration');
    expect(hop).toMatchObject({ kind: 'histogram', count: 2, sum: 6 });
    expect(cumulativeBuckets(hop!)).toEqual([
      { le: 0.1, count: 0 },
      { le: 1, count: 1 },
      { le: 10, count: 2 },
      { le: Infinity, count: 2 },
    ]);
    expect(seriesOf(totals, 'tierflow.open')).toMatchObject([{ kind: 'updown', value: 6 }]);
    // Gauges have no totals: what they were is in the minutes.
    expect(seriesOf(totals, 'tierflow.worker.jobs.running')).toEqual([]);
    expect(totals.meta.get('tierflow.runs.finished')).toEqual({ kind: 'counter', unit: '{run}', description: 'Runs finished' });

    const [minute] = await readStoreMinutes(db.redis, runtime, minuteOf(NOW), minuteOf(NOW));
    expect(minute!.minute).toBe(minuteOf(NOW));
    expect(seriesOf(minute!.metrics, 'tierflow.runs.finished').map((series) => series.value)).toEqual([1, 5]);
    expect(seriesOf(minute!.metrics, 'tierflow.worker.jobs.running').map((series) => series.value)).toEqual([4, 5]);
    expect(await db.redis.pttl(metricStoreKeys(prefix, 'fleet').minute(minuteOf(NOW)))).toBeGreaterThan(47 * 3_600_000);
    await Promise.all(processes.map((process) => process.stop()));
  });

  it('reads every cell, and minutes nobody wrote as empty', async () => {
    const prefix = uniquePrefix('{cells}');
    const runtime = { prefix, cells: 2 };
    for (const [cell, value] of [
      ['0', 2],
      ['1', 5],
    ] as const) {
      const cellPrefix = prefix.replace('}', `:${cell}}`);
      await writeToStore(db.redis, { prefix: cellPrefix, writer: 'serve' }, gaugeGroups([{ name: 'tierflow.queue.depth', attributes: { 'tierflow.tier': 'fleet' }, value }]), NOW);
    }
    const minutes = await readStoreMinutes(db.redis, runtime, minuteOf(NOW) - 1, minuteOf(NOW));
    expect(minutes.map(({ minute, metrics }) => [minute, seriesOf(metrics, 'tierflow.queue.depth').map((series) => series.value)])).toEqual([
      [minuteOf(NOW) - 1, []],
      [minuteOf(NOW), [7]],
    ]);
  });

  it('turns away new series past the field cap, counting them, and keeps adding to those it has', async () => {
    const prefix = uniquePrefix('{cap}');
    const process = worker({ redis: db.redis, prefix, totalsFieldCap: 3 });
    const counter = process.meter.createCounter('labels');
    // A label explosion: ten series, room for two (and the description).
    for (let index = 0; index < 10; index += 1) counter.add(1, { id: String(index) });
    await process.flush();
    counter.add(1, { id: '0' });
    counter.add(1, { id: '1' });
    await process.flush();
    const totals = await readStoreTotals(db.redis, { prefix, cells: 1 });
    expect(seriesOf(totals, 'labels').map((series) => series.value)).toEqual([2, 2]);
    expect(totals.dropped).toBe(8);
    expect(await db.redis.hlen(metricStoreKeys(prefix, 'fleet').totals)).toBe(4);
    await process.stop();
  });

  it('answers a failed export to the SDK when Redis refuses the write, and throws nothing into the process', async () => {
    const errors: Error[] = [];
    const refusing = { sendCommand: () => Promise.reject(new Error('NOPERM this user has no permissions')) } as unknown as Parameters<typeof metricStoreReader>[0]['redis'];
    const provider = new MeterProvider({ readers: [metricStoreReader({ redis: refusing, prefix: '{x}', writer: 'fleet', onError: (error) => errors.push(error) })] });
    provider.getMeter('m').createCounter('c').add(1);
    await expect(provider.forceFlush()).resolves.toBeUndefined();
    expect(errors.map((error) => error.message)).toEqual(['NOPERM this user has no permissions']);
    await provider.shutdown();
  });

  it('refuses an interval out of bounds', () => {
    expect(() => metricStoreReader({ redis: db.redis, prefix: '{x}', writer: 'fleet', intervalMs: 10 })).toThrow(/from 1000 to 300000/);
  });
});
