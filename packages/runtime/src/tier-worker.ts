import { BeadsStore } from '@tierflow/beads';
import { backoffDelay, checkDelegation } from '@tierflow/core';
import { tierBelow, type DelegationMessage, type OutcomeMessage, type TierName } from '@tierflow/protocol';
import { Queue, UnrecoverableError, WaitingChildrenError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { InvalidJobError, readAssignment } from './assignment.js';
import { collectRound, isPending } from './collect-round.js';
import { connect } from './connection.js';
import { DedupCache } from './dedup.js';
import { failureDraft, isPermanent } from './failures.js';
import type { Assignment, DelegationDraft, SettledRound, Step, TierContext, TierHandler, TierLogger } from './handler.js';
import { childJobs } from './child-jobs.js';
import { childMessageId, outcomeMessageId } from './ids.js';
import { consoleLogger } from './logger.js';
import { buildDelegation, buildOutcome } from './messages.js';
import type { RuntimeOptions } from './options.js';
import { QUEUE_OF } from './queues.js';
import { StepStore, type StepState } from './step-store.js';

export interface TierWorkerOptions {
  readonly handler: TierHandler;
  readonly runtime: RuntimeOptions;
  /** Jobs this process runs at once. */
  readonly concurrency?: number;
  readonly log?: TierLogger;
  /** BullMQ lock duration; a crashed worker's jobs are reclaimed after about this long. */
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
}

/**
 * One tier's worker: a BullMQ worker on the tier's queue that runs the tier's policy. A policy's
 * delegations become child jobs on the queue below; the parent parks in waiting-children and
 * resumes with their outcomes. Every message in and out is validated.
 *
 * ```ts
 * const worker = await TierWorker.start({ handler: fleetPolicy, runtime: runtimeOptionsFromEnv() });
 * process.on('SIGTERM', () => void worker.close());
 * ```
 */
export class TierWorker {
  readonly tier: TierName;
  private readonly worker: Worker;
  private readonly lowerQueue: Queue | null;
  private readonly steps: StepStore;
  private readonly dedup: DedupCache;
  private readonly beads: BeadsStore;
  private readonly log: TierLogger;
  /** The worker's own connection: BullMQ leaves connections it was handed open, so we close it. */
  private readonly workerRedis: Redis;

  private constructor(
    private readonly options: TierWorkerOptions,
    private readonly redis: Redis,
  ) {
    const { handler, runtime } = options;
    this.tier = handler.tier;
    this.log = options.log ?? consoleLogger(QUEUE_OF[this.tier]);
    this.steps = new StepStore(redis, runtime.prefix, runtime.keepFinishedMs);
    this.dedup = new DedupCache(redis, runtime.prefix, this.tier, runtime.dedupTtlMs);
    this.beads = new BeadsStore(redis, { tier: this.tier, prefix: runtime.prefix });
    const below = tierBelow(this.tier);
    this.lowerQueue = below ? new Queue(QUEUE_OF[below], { connection: redis, prefix: runtime.prefix }) : null;
    this.workerRedis = connect(runtime.redisUrl);
    this.worker = new Worker(QUEUE_OF[this.tier], (job, token, signal) => this.process(job, token, signal), {
      connection: this.workerRedis,
      prefix: runtime.prefix,
      concurrency: options.concurrency ?? 8,
      autorun: false,
      ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
      ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
      settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(attemptsMade, runtime.retry, Math.random) },
    });
    this.worker.on('error', (error) => this.log.warn('worker error', { error: error.message }));
    this.worker.on('failed', (job, error) => this.log.warn('job failed', { id: job?.id, error: error.message }));
  }

  /** Starts a worker and resolves once it is connected and taking jobs. */
  static async start(options: TierWorkerOptions): Promise<TierWorker> {
    const tierWorker = new TierWorker(options, connect(options.runtime.redisUrl));
    void tierWorker.worker.run().catch((error: unknown) => tierWorker.log.warn('worker stopped', { error: String(error) }));
    await tierWorker.worker.waitUntilReady();
    return tierWorker;
  }

  /** Stops taking jobs, lets the running ones finish, and disconnects. */
  async close(): Promise<void> {
    await this.worker.close();
    await this.lowerQueue?.close();
    this.workerRedis.disconnect();
    this.redis.disconnect();
  }

  private async process(job: Job, token: string | undefined, signal: AbortSignal | undefined): Promise<OutcomeMessage> {
    const startedAt = Date.now();
    let assignment: Assignment;
    try {
      assignment = readAssignment(this.tier, job.data);
    } catch (error) {
      if (error instanceof InvalidJobError) throw new UnrecoverableError(error.message);
      throw error;
    }
    const cached = await this.dedup.get(assignment.id);
    if (cached) return cached;

    const context = this.contextFor(job, assignment, signal);
    let state = await this.steps.load(job.id!);
    let giveUp = false;
    for (;;) {
      let step: Step;
      try {
        if (state === null) step = await this.options.handler.start(context);
        else {
          const round = await collectRound(job, this.lowerQueue!, state, this.tier, giveUp);
          if (isPending(round)) {
            // A crash between saving a round and adding its children leaves some never added.
            if (round.absent.length > 0) await this.addChildren(job, assignment, round.absent);
            if (await job.moveToWaitingChildren(token!)) throw new WaitingChildrenError();
            giveUp = true;
            continue;
          }
          step = await this.resumePolicy(context, round);
        }
      } catch (error) {
        if (error instanceof WaitingChildrenError) throw error;
        if (!isPermanent(error) && context.attempt < context.maxAttempts) throw error;
        step = { kind: 'outcome', outcome: failureDraft(error, context.attempt) };
      }
      if (step.kind === 'outcome') return this.finish(job, assignment, state, step, startedAt);
      state = await this.delegate(job, assignment, state, step);
      giveUp = false;
      if (await job.moveToWaitingChildren(token!)) throw new WaitingChildrenError();
    }
  }

  private async resumePolicy(context: TierContext, round: SettledRound): Promise<Step> {
    if (!this.options.handler.resume) {
      return { kind: 'outcome', outcome: { status: 'failed', summary: `${this.tier} cannot resume delegated work`, confidence: 0 } };
    }
    return this.options.handler.resume(context, round);
  }

  private async delegate(job: Job, assignment: Assignment, previous: StepState | null, step: Extract<Step, { kind: 'delegate' }>): Promise<StepState> {
    const below = tierBelow(this.tier);
    const guard = below ? checkDelegation(this.tier, below) : checkDelegation(this.tier, this.tier);
    if (!guard.ok || !this.lowerQueue) throw new UnrecoverableError(guard.ok ? `${this.tier} has no tier below` : guard.reason);
    if (step.children.length === 0) throw new UnrecoverableError(`${this.tier} delegated no children`);
    const round = previous === null ? 0 : previous.round + 1;
    const messages = this.childMessages(
      assignment,
      step.children.map((request, index) => ({ id: childMessageId(assignment.id, round, index), request })),
    );
    const state: StepState = {
      round,
      strategy: step.strategy,
      children: messages.map((message, index) => ({ id: message.id, index, request: message.payload })),
      memo: step.memo ?? {},
    };
    // State first: a crash after this line re-adds the same children (same ids) on the next try.
    await this.steps.save(job.id!, state);
    await this.lowerQueue.addBulk(childJobs(messages, job, this.options.runtime));
    return state;
  }

  private async addChildren(job: Job, assignment: Assignment, children: readonly StepState['children'][number][]): Promise<void> {
    await this.lowerQueue!.addBulk(childJobs(this.childMessages(assignment, children), job, this.options.runtime));
  }

  /** Validated delegation messages; the root's children have no correlation id, since the root is not a message. */
  private childMessages(assignment: Assignment, children: readonly { id: string; request: DelegationDraft }[]): DelegationMessage[] {
    const now = Date.now();
    const correlation = assignment.message ? assignment.id : null;
    return children.map((child) => buildDelegation(this.tier, child.id, correlation, child.request, now));
  }

  private async finish(
    job: Job,
    assignment: Assignment,
    state: StepState | null,
    step: Extract<Step, { kind: 'outcome' }>,
    startedAt: number,
  ): Promise<OutcomeMessage> {
    const now = Date.now();
    const outcome =
      this.tier === 'PROGRESS_MONITOR'
        ? // The root's outcome is what the Monitor received from the Architect, as the Monitor evaluated it.
          buildOutcome('ABSTRACT_ARCHITECT', state?.children.at(-1)?.id ?? assignment.id, step.outcome, now - startedAt, now)
        : buildOutcome(this.tier, assignment.id, step.outcome, now - startedAt, now);
    const fixed = this.tier === 'PROGRESS_MONITOR' ? { ...outcome, id: outcomeMessageId(assignment.id) } : outcome;
    const pipeline = this.redis.multi();
    this.dedup.record(pipeline, assignment.id, fixed);
    this.steps.forget(pipeline, job.id!);
    await pipeline.exec();
    return fixed;
  }

  private contextFor(job: Job, assignment: Assignment, signal: AbortSignal | undefined): TierContext {
    return {
      tier: this.tier,
      assignment,
      attempt: job.attemptsMade + 1,
      maxAttempts: job.opts.attempts ?? 1,
      signal: signal ?? new AbortController().signal,
      beads: this.beads,
      log: this.log,
      now: () => Date.now(),
    };
  }
}
