import { TIER_NAMES, TIER_SLUGS, type TierSlug } from '@tierflow/protocol';
import { bullQueue, cellPrefixes, gaugeGroups, QUEUE_OF, writeToStore, type GaugeSample, type RedisClient } from '@tierflow/runtime/admin';
import type { RuntimeOptions, TierLogger, WorkerBeat } from '@tierflow/runtime';
import type { Queue } from 'bullmq';
import type { DeploymentGauge } from './exposition.js';

/** The BullMQ states tierflow.queue.depth is broken down by. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed'] as const;

/** The states of jobs no worker has taken yet: what the dashboard draws as a tier's queue depth. */
export const QUEUED_STATES: readonly string[] = ['waiting', 'prioritized', 'delayed'];

export const QUEUE_DEPTH = 'tierflow.queue.depth';
const TIERS = Object.values(TIER_SLUGS);

/** A cell's samples of tierflow.queue.depth: one per tier and state. */
export interface CellDepths {
  readonly prefix: string;
  readonly samples: GaugeSample[];
}

/** Samples by tier and state, from job counts by tier. Pure. */
export function depthSamples(counts: readonly (readonly [TierSlug, Readonly<Record<string, number>>])[]): GaugeSample[] {
  return counts.flatMap(([tier, byState]) => QUEUE_STATES.map((state) => ({ name: QUEUE_DEPTH, attributes: { 'tierflow.tier': tier, 'tierflow.queue.state': state }, value: byState[state] ?? 0 })));
}

/** The same samples of several cells added up. Pure. */
export function sumSamples(samples: readonly GaugeSample[]): GaugeSample[] {
  const sums = new Map<string, GaugeSample>();
  for (const sample of samples) {
    const id = `${sample.name} ${JSON.stringify(sample.attributes)}`;
    const seen = sums.get(id);
    sums.set(id, seen ? { ...seen, value: seen.value + sample.value } : sample);
  }
  return [...sums.values()];
}

/** The worker gauges from the heartbeats: how many workers each tier has alive, and what each one runs. Pure. */
export function workerGauges(beats: readonly WorkerBeat[]): DeploymentGauge[] {
  const slugOf = (tier: string): string => (TIER_SLUGS as Readonly<Record<string, string>>)[tier] ?? tier;
  const alive = TIERS.map((tier) => ({ name: 'tierflow.workers.alive', attributes: { 'tierflow.tier': tier }, value: beats.filter((beat) => slugOf(beat.tier) === tier).length }));
  const running = beats.map((beat) => ({
    name: 'tierflow.worker.jobs.running',
    attributes: { 'tierflow.tier': slugOf(beat.tier), 'service.instance.id': `${beat.host}:${beat.pid}` },
    value: beat.running,
  }));
  return [
    { name: 'tierflow.workers.alive', description: 'Worker processes alive, from their heartbeats', unit: '{worker}', samples: alive },
    { name: 'tierflow.worker.jobs.running', description: 'Jobs running in each worker process, at its latest heartbeat', unit: '{job}', samples: running },
  ];
}

/** How often serve samples queue depth into the store while it runs, ms. */
export const DEPTH_SAMPLE_MS = 15_000;

/**
 * The deployment's queues, for their depth: each tier's queue in each cell. Samples the depth into
 * the metric store (as `serve`'s minute gauges, per cell) every {@link DEPTH_SAMPLE_MS} while it
 * runs, so the dashboard has a history of it even when nobody scrapes.
 */
export class QueueDepths {
  private readonly cells: { readonly prefix: string; readonly queues: (readonly [TierSlug, Queue])[] }[];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: RedisClient,
    runtime: Pick<RuntimeOptions, 'prefix' | 'cells'>,
    private readonly log: TierLogger,
    private readonly now: () => number = Date.now,
  ) {
    this.cells = cellPrefixes(runtime).map((prefix) => ({ prefix, queues: TIER_NAMES.map((name) => [TIER_SLUGS[name], bullQueue(QUEUE_OF[name], redis, prefix)] as const) }));
  }

  /** Each cell's depth by tier and state, read now. */
  async read(): Promise<CellDepths[]> {
    return Promise.all(
      this.cells.map(async ({ prefix, queues }) => ({
        prefix,
        samples: depthSamples(await Promise.all(queues.map(async ([tier, queue]) => [tier, await queue.getJobCounts(...QUEUE_STATES)] as const))),
      })),
    );
  }

  /** Reads the depth and writes it into the store's minute; a failure is logged, never thrown. */
  async sample(): Promise<void> {
    try {
      const cells = await this.read();
      const at = this.now();
      await Promise.all(cells.map((cell) => writeToStore(this.redis, { prefix: cell.prefix, writer: 'serve' }, gaugeGroups(cell.samples), at)));
    } catch (error) {
      this.log.warn('could not sample the queue depth', { error: error instanceof Error ? error.message : String(error) });
    }
  }

  /** Samples now and every `intervalMs` after, until closed; a second call does nothing. */
  start(intervalMs = DEPTH_SAMPLE_MS): void {
    if (this.timer) return;
    void this.sample();
    this.timer = setInterval(() => void this.sample(), intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.cells.flatMap((cell) => cell.queues.map(([, queue]) => queue.close())));
  }
}
