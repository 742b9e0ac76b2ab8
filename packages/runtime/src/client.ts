import { formatValidationError, isOutcome, validate, validateWith, type OutcomeMessage } from '@tierflow/protocol';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobOptions } from './child-jobs.js';
import { connect } from './connection.js';
import { newRootId } from './ids.js';
import { objectiveFileSchema, type RootObjective } from './objective.js';
import type { RuntimeOptions } from './options.js';
import { QUEUE_OF } from './queues.js';
import { readRunTree, type RunNode } from './run-tree.js';

export class ObjectiveFileError extends Error {
  override readonly name = 'ObjectiveFileError';
}

/**
 * The user's side of a deployment: enqueue root objectives, wait for or fetch their outcomes,
 * and read a run's tree.
 *
 * ```ts
 * const client = new TierflowClient(runtimeOptionsFromEnv());
 * const id = await client.enqueue({ objective: 'Summarise the release notes' });
 * const outcome = await client.waitForResult(id, { timeoutMs: 60_000 });
 * await client.close();
 * ```
 */
export class TierflowClient {
  private readonly redis: Redis;
  private readonly monitor: Queue;
  private events: { queueEvents: QueueEvents; redis: Redis } | null = null;

  constructor(private readonly runtime: RuntimeOptions) {
    this.redis = connect(runtime.redisUrl);
    this.monitor = new Queue(QUEUE_OF.PROGRESS_MONITOR, { connection: this.redis, prefix: runtime.prefix });
  }

  /** Validates an objective (a parsed objective file) and enqueues it; returns the root id. */
  async enqueue(objective: unknown, options: { rootId?: string } = {}): Promise<string> {
    const parsed = validateWith(objectiveFileSchema, objective);
    if (!parsed.ok) throw new ObjectiveFileError(`invalid objective: ${parsed.errors.map(formatValidationError).join('; ')}`);
    const rootId = options.rootId ?? newRootId();
    const root: RootObjective = { kind: 'root', root_id: rootId, submitted_at: new Date().toISOString(), objective: parsed.value };
    await this.monitor.add('objective', root, jobOptions(rootId, parsed.value.priority ?? 2, this.runtime));
    return rootId;
  }

  /** The root's final outcome while it is retained, or null if it has not finished (or is unknown). */
  async result(rootId: string): Promise<OutcomeMessage | null> {
    const job = await this.monitor.getJob(rootId);
    if (!job || !(await job.isCompleted())) return null;
    return asOutcome(job.returnvalue);
  }

  /** Waits for the root's final outcome; rejects after `timeoutMs`. */
  async waitForResult(rootId: string, options: { timeoutMs?: number } = {}): Promise<OutcomeMessage> {
    const events = await this.queueEvents();
    const job = await this.monitor.getJob(rootId);
    if (!job) throw new Error(`no root objective ${rootId}`);
    const value: unknown = await job.waitUntilFinished(events, options.timeoutMs);
    const outcome = asOutcome(value);
    if (!outcome) throw new Error(`root ${rootId} finished without a valid outcome`);
    return outcome;
  }

  /** The run's tree as it stands, or null for an unknown (or no longer retained) root. */
  async tree(rootId: string): Promise<RunNode | null> {
    return readRunTree(this.redis, this.runtime.prefix, rootId);
  }

  async close(): Promise<void> {
    await this.events?.queueEvents.close();
    this.events?.redis.disconnect();
    await this.monitor.close();
    this.redis.disconnect();
  }

  private async queueEvents(): Promise<QueueEvents> {
    if (!this.events) {
      const redis = connect(this.runtime.redisUrl);
      this.events = { queueEvents: new QueueEvents(QUEUE_OF.PROGRESS_MONITOR, { connection: redis, prefix: this.runtime.prefix }), redis };
      await this.events.queueEvents.waitUntilReady();
    }
    return this.events.queueEvents;
  }
}

function asOutcome(value: unknown): OutcomeMessage | null {
  const result = validate(value);
  return result.ok && isOutcome(result.value) ? result.value : null;
}
