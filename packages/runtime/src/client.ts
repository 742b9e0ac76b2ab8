import { formatValidationError, isOutcome, validate, validateWith, type OutcomeMessage } from '@tierflow/protocol';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { cancelMessage, type CancelReport } from './cancel.js';
import { jobOptions } from './child-jobs.js';
import { inFlightTtlMs } from './retention.js';
import { DeadLetters } from './dead-letters.js';
import { controlKeys } from './control-keys.js';
import { context, rootSpan, serialiseContext, trace } from './tracing.js';
import { JobFinder } from './job-finder.js';
import { connect } from './connection.js';
import { newRootId } from './ids.js';
import { objectiveFileSchema, type RootObjective } from './objective.js';
import type { RuntimeOptions } from './options.js';
import { QUEUE_OF } from './queues.js';
import { readRunTree, type RunNode } from './run-tree.js';
import { checkSignature, signRecord } from './signing.js';
import type { SigningConfig } from './signing-keys.js';

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
  /** The listener being started, so that callers racing to start it share one. */
  private starting: Promise<QueueEvents> | null = null;
  private readonly waiters = new Map<string, Set<(result: { outcome: OutcomeMessage } | { error: Error }) => void>>();
  /**
   * Roots this client enqueued after its event listener took its place in the stream, whose end
   * it has not yet seen: their completion cannot be missed, so waiting for one needs no lookup.
   */
  private readonly announced = new Set<string>();

  constructor(private readonly runtime: RuntimeOptions) {
    this.redis = connect(runtime.redisUrl);
    this.monitor = new Queue(QUEUE_OF.PROGRESS_MONITOR, { connection: this.redis, prefix: runtime.prefix });
  }

  /** Validates an objective (a parsed objective file) and enqueues it; returns the root id. */
  async enqueue(objective: unknown, options: { rootId?: string } = {}): Promise<string> {
    const parsed = validateWith(objectiveFileSchema, objective);
    if (!parsed.ok) throw new ObjectiveFileError(`invalid objective: ${parsed.errors.map(formatValidationError).join('; ')}`);
    const rootId = options.rootId ?? newRootId();
    // In a deployment that signs, the Monitor refuses a root record without a valid signature.
    const root: RootObjective = signRecord({ kind: 'root', root_id: rootId, submitted_at: new Date().toISOString(), objective: parsed.value }, this.runtime.signing);
    // With an SDK running (the CLI starts one), the run's trace starts here; without, at the Monitor.
    const span = rootSpan(rootId, QUEUE_OF.PROGRESS_MONITOR);
    const metadata = serialiseContext(trace.setSpan(context.active(), span));
    span.end();
    const listening = this.events !== null;
    await this.monitor.add('objective', root, { ...jobOptions(rootId, parsed.value.priority ?? 2, this.runtime), ...(metadata ? { telemetry: { metadata } } : {}) });
    if (listening) this.announced.add(rootId);
    return rootId;
  }

  /** The root's final outcome while it is retained, or null if it has not finished (or is unknown). */
  async result(rootId: string): Promise<OutcomeMessage | null> {
    const job = await this.monitor.getJob(rootId);
    if (!job || !(await job.isCompleted())) return null;
    return asOutcome(job.returnvalue, this.runtime.signing);
  }

  /**
   * Waits for the root's final outcome; rejects after `timeoutMs`. One listener on the Monitor's
   * event stream serves every waiter, so thousands of roots can be awaited at once.
   */
  async waitForResult(rootId: string, options: { timeoutMs?: number } = {}): Promise<OutcomeMessage> {
    await this.queueEvents();
    return new Promise<OutcomeMessage>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (result: { outcome: OutcomeMessage } | { error: Error }): void => {
        this.waiters.get(rootId)?.delete(settle);
        if (this.waiters.get(rootId)?.size === 0) this.waiters.delete(rootId);
        clearTimeout(timer);
        if ('outcome' in result) resolve(result.outcome);
        else reject(result.error);
      };
      // Listen first, then look: a root that finishes in between is caught by one or the other.
      const waiting = this.waiters.get(rootId) ?? new Set();
      waiting.add(settle);
      this.waiters.set(rootId, waiting);
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => settle({ error: new Error(`timed out after ${options.timeoutMs} ms waiting for root ${rootId}`) }), options.timeoutMs);
      }
      // Its end is still to come on the stream, and the waiter is in place to hear it.
      if (this.announced.has(rootId)) return;
      this.monitor.getJob(rootId).then(
        async (job) => {
          if (!job) return settle({ error: new Error(`no root objective ${rootId}`) });
          const state = await job.getState();
          if (state === 'completed') settle(outcomeOrError(rootId, job.returnvalue, this.runtime.signing));
          else if (state === 'failed') settle({ error: new Error(`root ${rootId} failed: ${job.failedReason}`) });
        },
        (error: unknown) => settle({ error: error instanceof Error ? error : new Error(String(error)) }),
      );
    });
  }

  /**
   * Cancels a message's work (a root, or any delegation in a run): it answers `cancelled` with the
   * partial results it has, and with `cascade` (the default) so does every descendant.
   * Cancelling finished work does nothing and says so.
   */
  async cancel(messageId: string, options: { reason?: string; cascade?: boolean } = {}): Promise<CancelReport> {
    const finder = new JobFinder(this.redis, this.runtime.prefix);
    try {
      return await cancelMessage(this.redis, finder, this.runtime.prefix, messageId, {
        reason: options.reason ?? 'cancelled by an operator',
        cascade: options.cascade ?? true,
        markTtlMs: inFlightTtlMs(this.runtime),
        signing: this.runtime.signing,
      });
    } finally {
      await finder.close();
    }
  }

  /** The dead letters of this deployment: rejected jobs with their reasons. */
  deadLetters(): DeadLetters {
    return new DeadLetters(this.redis, this.runtime.prefix);
  }

  /** The root's trace id, once its Monitor has started (and only when the Monitor records spans). */
  async traceId(rootId: string): Promise<string | null> {
    return this.redis.get(controlKeys(this.runtime.prefix).trace(rootId));
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

  private notify(rootId: string, result: { outcome: OutcomeMessage } | { error: Error }): void {
    this.announced.delete(rootId);
    for (const settle of [...(this.waiters.get(rootId) ?? [])]) settle(result);
  }

  private queueEvents(): Promise<QueueEvents> {
    this.starting ??= this.startListening();
    return this.starting;
  }

  private async startListening(): Promise<QueueEvents> {
    // Read from the stream's end as it is now: every event from here on is heard, even those
    // before the listener's first read.
    const [last] = await this.redis.xrevrange(this.monitor.toKey('events'), '+', '-', 'COUNT', 1);
    const redis = connect(this.runtime.redisUrl);
    const queueEvents = new QueueEvents(QUEUE_OF.PROGRESS_MONITOR, { connection: redis, prefix: this.runtime.prefix, lastEventId: last?.[0] ?? '0-0' });
    this.events = { queueEvents, redis };
    queueEvents.on('completed', ({ jobId, returnvalue }) => this.notify(jobId, outcomeOrError(jobId, returnvalue, this.runtime.signing)));
    queueEvents.on('failed', ({ jobId, failedReason }) => this.notify(jobId, { error: new Error(`root ${jobId} failed: ${failedReason}`) }));
    await queueEvents.waitUntilReady();
    return queueEvents;
  }
}

function outcomeOrError(rootId: string, value: unknown, signing: SigningConfig | null): { outcome: OutcomeMessage } | { error: Error } {
  const outcome = asOutcome(value, signing);
  return outcome ? { outcome } : { error: new Error(`root ${rootId} finished without a valid${signing ? ', signed' : ''} outcome`) };
}

/** The root's outcome, or null; in a deployment that signs, only one the Monitor signed. */
function asOutcome(value: unknown, signing: SigningConfig | null): OutcomeMessage | null {
  const result = validate(value);
  if (!result.ok || !isOutcome(result.value)) return null;
  // The signature covers the record as stored: JSON text when it comes as text.
  const raw: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return signing && !checkSignature(raw, signing).ok ? null : result.value;
}
