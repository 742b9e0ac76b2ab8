import { formatValidationError, TierflowError, validateWith, type OutcomeMessage } from '@tierflow/protocol';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { cancelMessage, type CancelReport } from '../cancellation/cancel.js';
import { RedisClock } from '../deadlines/clock.js';
import { CLIENT } from '../security/party.js';
import { jobOptions } from '../engine/child-jobs.js';
import { inFlightTtlMs } from '../config/retention.js';
import { DeadLetters } from '../dead-letters/dead-letters.js';
import { controlKeys } from '../cancellation/control-keys.js';
import { context, rootSpan, serialiseContext, trace } from '../observability/tracing.js';
import { JobFinder } from '../redis/job-finder.js';
import { connect } from '../redis/connection.js';
import { consoleLogger } from '../observability/logger.js';
import { newRootId } from '../messages/ids.js';
import { checkObjectiveSize } from '../checks/input-limits.js';
import { objectiveFileSchema, type RootObjective } from './objective.js';
import type { RuntimeOptions } from '../config/options.js';
import { QUEUE_OF } from '../messages/queues.js';
import { ResultWaits } from './result-waits.js';
import { asOutcome } from './root-outcome.js';
import { listWorkers, type WorkerBeat } from '../workers/heartbeat.js';
import { listRuns, type RunListOptions, type RunSummary } from './run-list.js';
import { readRunTree } from '../audit/run-tree.js';
import type { RunNode } from '../audit/run-tree-merge.js';
import { signRecord } from '../security/signing.js';
import { signerOf } from '../security/signing-keys.js';

/** A root objective that does not pass its checks: nothing was enqueued. */
export class ObjectiveFileError extends TierflowError {
  override readonly name = 'ObjectiveFileError';
  constructor(message: string) {
    super(message, { code: 'invalid_objective', retryable: false });
  }
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
  /** The waits for root outcomes, with their listener on the Monitor's event stream; made by the first wait. */
  private waits: ResultWaits | null = null;
  /** Redis's clock, measured on first use: roots are timed on the clock their deadlines are enforced by. */
  private clock: Promise<RedisClock> | null = null;

  constructor(private readonly runtime: RuntimeOptions) {
    this.redis = connect(runtime.redisUrl);
    this.monitor = new Queue(QUEUE_OF.PROGRESS_MONITOR, { connection: this.redis, prefix: runtime.prefix });
    // connect() already says once that Redis is down; without a listener BullMQ prints every retry's error whole.
    this.monitor.on('error', () => undefined);
  }

  /**
   * Validates an objective (a parsed objective file) and enqueues it; returns the root id.
   *
   * @throws InputTooLargeError (code `input_too_large`) for more subtasks or bytes than the
   *   deployment's limits ({@link RuntimeOptions.limits}); ObjectiveFileError for an invalid one.
   */
  async enqueue(objective: unknown, options: { rootId?: string } = {}): Promise<string> {
    checkObjectiveSize(objective, this.runtime.limits);
    const parsed = validateWith(objectiveFileSchema, objective);
    if (!parsed.ok) throw new ObjectiveFileError(`invalid objective: ${parsed.errors.map(formatValidationError).join('; ')}`);
    const rootId = options.rootId ?? newRootId();
    // In a deployment that signs, the Monitor refuses a root record without a valid signature; a
    // client without its key learns so before it waits on Redis.
    const signer = signerOf(this.runtime.signing, CLIENT);
    const now = await this.now();
    const root: RootObjective = signRecord({ kind: 'root', root_id: rootId, submitted_at: new Date(now).toISOString(), objective: parsed.value }, signer);
    // With an SDK running (the CLI starts one), the run's trace starts here; without, at the Monitor.
    const span = rootSpan(rootId, QUEUE_OF.PROGRESS_MONITOR);
    const metadata = serialiseContext(trace.setSpan(context.active(), span));
    span.end();
    const listening = this.waits?.listening === true;
    await this.monitor.add('objective', root, { ...jobOptions(rootId, parsed.value.priority ?? 2, this.runtime, now), ...(metadata ? { telemetry: { metadata } } : {}) });
    if (listening) this.waits?.announce(rootId);
    return rootId;
  }

  /** The root's final outcome while it is retained, or null if it has not finished (or is unknown). */
  async result(rootId: string): Promise<OutcomeMessage | null> {
    const job = await this.monitor.getJob(rootId);
    if (!job || !(await job.isCompleted())) return null;
    return asOutcome(job.returnvalue, this.runtime.signing);
  }

  /**
   * Waits for the root's final outcome. One listener on the Monitor's event stream serves every
   * waiter, and one lookup every couple of seconds covers them all, so thousands of roots can be
   * awaited at once; a root whose event was missed still settles.
   *
   * Rejects with a {@link RootWaitError}: `wait_timeout` after `timeoutMs` — by default the
   * objective's timeout_ms plus {@link WAIT_GRACE_MS}, or {@link DEFAULT_WAIT_LIMIT_MS} for an
   * objective without one; `root_vanished` once the root no longer exists (Redis flushed, or
   * restarted without persistence); `root_not_found` for an unknown root; `root_failed`,
   * `root_outcome_invalid`, `root_unreadable` when it ended without a valid outcome.
   */
  async waitForResult(rootId: string, options: { timeoutMs?: number } = {}): Promise<OutcomeMessage> {
    this.waits ??= new ResultWaits({
      redis: this.redis,
      listener: connect(this.runtime.redisUrl),
      eventsKey: this.monitor.toKey('events'),
      jobKey: (id) => this.monitor.toKey(id),
      signing: this.runtime.signing,
      log: consoleLogger('client'),
    });
    return this.waits.wait(rootId, options.timeoutMs);
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
        writer: CLIENT,
        markTtlMs: inFlightTtlMs(this.runtime),
        signer: signerOf(this.runtime.signing, CLIENT),
        now: await this.now(),
      });
    } finally {
      await finder.close();
    }
  }

  /** The dead letters of this deployment: rejected jobs with their reasons. */
  deadLetters(): DeadLetters {
    return new DeadLetters(this.redis, this.runtime.prefix);
  }

  /** Now, on the deployment's clock. */
  private async now(): Promise<number> {
    this.clock ??= RedisClock.start(this.redis);
    try {
      return (await this.clock).now();
    } catch (error) {
      this.clock = null;
      throw error;
    }
  }

  /** The root's trace id, once its Monitor has started (and only when the Monitor records spans). */
  async traceId(rootId: string): Promise<string | null> {
    return this.redis.get(controlKeys(this.runtime.prefix).trace(rootId));
  }

  /**
   * The run's tree as it stands: every delegation on its audit trail or in the queues, with its
   * status and where that came from. Null for an unknown root, or one whose jobs and audit trail
   * are both past retention.
   */
  async tree(rootId: string): Promise<RunNode | null> {
    return readRunTree(this.redis, this.runtime.prefix, rootId);
  }

  /** The most recent runs, latest first: running, waiting, and finished ones still retained; `status` keeps those of one status. */
  async runs(options: RunListOptions = {}): Promise<RunSummary[]> {
    return listRuns(this.monitor, options, await this.now());
  }

  /** The deployment's live worker processes, from their heartbeats, sorted by tier, host and pid. */
  async workers(): Promise<WorkerBeat[]> {
    return listWorkers(this.redis, this.runtime.prefix);
  }

  async close(): Promise<void> {
    this.waits?.close();
    void this.clock?.then(
      (clock) => clock.stop(),
      () => undefined,
    );
    await this.monitor.close();
    this.redis.disconnect();
  }
}
