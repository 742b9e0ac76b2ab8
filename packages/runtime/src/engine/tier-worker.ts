import { DeferredBeadsStore, type TierSlug } from '@tierflow/beads';
import { backoffDelay, checkDelegation } from '@tierflow/core';
import { tierBelow, TierflowError, type DelegationMessage, type OutcomeMessage, type TierName } from '@tierflow/protocol';
import { UnrecoverableError, WaitingChildrenError, Worker, type Job, type Queue } from 'bullmq';
import { ROOT_CONTEXT, type Context, type Link, type Span } from '@opentelemetry/api';
import type { Redis } from 'ioredis';
import { InvalidJobError } from './assignment.js';
import { AssignmentMemo } from './assignment-memo.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { lockKey } from '../redis/bullmq-keys.js';
import { cancelMessage, pendingChildIds } from '../cancellation/cancel.js';
import { addChildJobs, childJobs } from './child-jobs.js';
import { collectRound, isPending, type CollectMode } from './collect-round.js';
import { RedisClock } from '../deadlines/clock.js';
import { connect } from '../redis/connection.js';
import { crashedDraft, crashesOf, isPoison, stalledLimit } from './crash-guard.js';
import { controlKeys, roundKeyOf, type ControlKeys } from '../cancellation/control-keys.js';
import { raceRecord, readRace } from '../cancellation/control-records.js';
import { isStopReason, RunningHandlers, type StopReason } from '../cancellation/control-listener.js';
import { DeadLetters } from '../dead-letters/dead-letters.js';
import { DedupCache } from './dedup.js';
import { withExpectedOutput } from '../checks/expected-output.js';
import { failureDraft, isPermanent, stoppedDraft } from './failures.js';
import type { Assignment, DelegationDraft, SettledChild, SettledRound, Step, TierContext, TierHandler, TierLogger } from '../policy/handler.js';
import { childMessageId, outcomeMessageId } from '../messages/ids.js';
import { FencedBatch, LockLostError } from '../redis/fenced-batch.js';
import { JobFactsReader, type JobFacts } from './job-facts.js';
import { JobFinder } from '../redis/job-finder.js';
import { partyOf } from '../security/party.js';
import { consoleLogger, throttledWarning } from '../observability/logger.js';
import { buildDelegation, buildOutcome } from '../messages/messages.js';
import { MessageGate } from '../security/message-gate.js';
import { signRecord } from '../security/signing.js';
import { signerOf, type Signer } from '../security/signing-keys.js';
import type { RuntimeOptions } from '../config/options.js';
import { QUEUE_OF } from '../messages/queues.js';
import { finishedJobRetention, inFlightTtlMs } from '../config/retention.js';
import { StepStore, type StepState } from './step-store.js';
import { deadlineOf, receiverMarginMs } from '../deadlines/timing.js';
import { checkUpstream, reportChecks, withCascadeCheck } from '../checks/upstream-check.js';
import { context as otelContext, deserialiseContext, delegationSpan, endForRetry, endWithOutcome, linkTo, serialiseContext, startProcessSpan, trace } from '../observability/tracing.js';
import { nextWatch, runWatchdog, watchMember, type WatchdogJob } from '../deadlines/watchdog.js';
import { WatchdogSweeper } from '../deadlines/watchdog-sweeper.js';

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

/** What a pass has yet to write when it sends its delegations or its outcome. */
interface PassWrites {
  readonly beads: DeferredBeadsStore;
  readonly received: readonly SettledChild[];
  /** The pass's hold on its job: every write it commits is fenced by it. */
  readonly lock: PassLock;
}

/** Which lock a pass holds: its job's, with the token BullMQ gave this pass. */
interface PassLock {
  readonly jobId: string;
  readonly key: string;
  readonly token: string;
}

/**
 * One tier's worker: a BullMQ worker on the tier's queue that runs the tier's policy. A policy's
 * delegations become child jobs on the queue below; the parent parks in waiting-children and
 * resumes with their outcomes. Every message in and out is validated. Each process also listens
 * on the control channel (to abort cancelled handlers) and runs watchdogs for any tier.
 *
 * ```ts
 * const worker = await TierWorker.start({ handler: fleetPolicy, runtime: runtimeOptionsFromEnv() });
 * process.on('SIGTERM', () => void worker.close());
 * ```
 */
export class TierWorker {
  readonly tier: TierName;
  /** The tier as a party: the owner of its control records (and, when signing, its key). */
  private readonly party: TierSlug;
  /** Signs what this tier sends and writes, when the deployment signs: with this tier's own key. */
  private readonly signer: Signer | null;
  private readonly worker: Worker;
  private readonly watchdogs: WatchdogSweeper;
  private readonly lowerQueue: Queue | null;
  private readonly steps: StepStore;
  private readonly dedup: DedupCache;
  /** Assignments already validated, for parents resuming in this process. */
  private readonly assignments: AssignmentMemo;
  /** Every message this tier sends or receives, appended to its run's audit stream. */
  private readonly audit: AuditTrail;
  /** Signature, clock and replay checks of each job; null when the deployment does not sign. */
  private readonly gate: MessageGate | null;
  private readonly finder: JobFinder;
  private readonly deadLetters: DeadLetters;
  private readonly keys: ControlKeys;
  /** Reads (and parses, and logs what it must ignore of) what the runtime keeps beside each job. */
  private readonly reader: JobFactsReader;
  private readonly running: RunningHandlers;
  private readonly log: TierLogger;
  /** Connections of our own: BullMQ leaves connections it was handed open, so we close them. */
  private readonly connections: Redis[];

  private constructor(
    private readonly options: TierWorkerOptions,
    private readonly redis: Redis,
    /** Redis's clock: every deadline this worker sets or checks is on it, whatever this host's clock says. */
    private readonly clock: RedisClock,
  ) {
    const { handler, runtime } = options;
    this.tier = handler.tier;
    this.log = options.log ?? consoleLogger(QUEUE_OF[this.tier]);
    this.party = partyOf(this.tier);
    this.signer = signerOf(runtime.signing, this.party);
    this.steps = new StepStore(redis, runtime.prefix, this.party, inFlightTtlMs(runtime), runtime.signing);
    this.dedup = new DedupCache(runtime.prefix, this.tier, runtime.dedupTtlMs);
    this.assignments = new AssignmentMemo(this.tier, undefined, runtime.limits);
    this.audit = new AuditTrail(redis, runtime.prefix, this.tier, runtime.auditTtlMs, this.log, clock);
    this.gate = runtime.signing ? new MessageGate(redis, runtime.prefix, this.tier, runtime.signing, runtime.dedupTtlMs) : null;
    // BullMQ's queues get a connection of their own: it loads BullMQ's scripts onto the connection,
    // and every MULTI on a connection copies all its scripts, which is costly on the hot path.
    const [queueRedis, workerRedis, subscriber] = [connect(runtime.redisUrl), connect(runtime.redisUrl), connect(runtime.redisUrl)];
    this.connections = [queueRedis, workerRedis, subscriber];
    this.finder = new JobFinder(queueRedis, runtime.prefix);
    this.deadLetters = new DeadLetters(queueRedis, runtime.prefix);
    this.keys = controlKeys(runtime.prefix);
    this.reader = new JobFactsReader({ redis, keys: this.keys, tier: this.tier, dedup: this.dedup, steps: this.steps, signing: runtime.signing, log: this.log });
    const below = tierBelow(this.tier);
    this.lowerQueue = below ? this.finder.queue(below) : null;
    const refusedNotice = throttledWarning(this.log, `dropped a malformed notice on ${this.keys.channel}`);
    this.running = new RunningHandlers(subscriber, this.keys.channel, {
      verify: runtime.signing ? (ids) => this.reader.cancelled(ids) : null,
      onRefused: (reason) => refusedNotice({ reason }),
    });
    this.worker = new Worker(QUEUE_OF[this.tier], (job, token) => this.process(job, token), {
      connection: workerRedis,
      prefix: runtime.prefix,
      concurrency: options.concurrency ?? 8,
      autorun: false,
      lockDuration: options.lockDurationMs ?? runtime.lockDurationMs,
      stalledInterval: options.stalledIntervalMs ?? runtime.stalledIntervalMs,
      maxStalledCount: stalledLimit(runtime.maxCrashes),
      removeOnComplete: finishedJobRetention(runtime),
      removeOnFail: finishedJobRetention(runtime),
      settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(attemptsMade, runtime.retry, Math.random) },
    });
    this.watchdogs = new WatchdogSweeper({
      redis,
      key: this.keys.watchdogs(this.party),
      intervalMs: WATCHDOG_SWEEP_MS,
      run: (watch) => this.watch(watch),
      onError: (error) => this.log.warn('watchdog error', { error: String(error) }),
      onMalformed: (member) => this.log.warn('dropped a malformed watchdog entry', { key: this.keys.watchdogs(this.party), member: member.slice(0, 200) }),
    });
    this.worker.on('error', (error) => this.log.warn('worker error', { error: error.message }));
    this.worker.on('failed', (job, error) => this.log.warn('job failed', { id: job?.id, error: error.message }));
  }

  /**
   * Starts a worker and resolves once it is connected and taking jobs. If it cannot (Redis refuses
   * its password, say), it leaves no connection open, so that its process can exit.
   */
  static async start(options: TierWorkerOptions): Promise<TierWorker> {
    // A worker that cannot sign as its tier stops before it opens a connection that would keep it alive.
    signerOf(options.runtime.signing, partyOf(options.handler.tier));
    const redis = connect(options.runtime.redisUrl);
    let clock: RedisClock;
    try {
      clock = await RedisClock.start(redis);
    } catch (error) {
      redis.disconnect();
      throw error;
    }
    const tierWorker = new TierWorker(options, redis, clock);
    try {
      await tierWorker.running.listen();
      void tierWorker.worker.run().catch((error: unknown) => tierWorker.log.warn('worker stopped', { error: String(error) }));
      await tierWorker.worker.waitUntilReady();
    } catch (error) {
      tierWorker.abandon();
      throw error;
    }
    tierWorker.watchdogs.start();
    return tierWorker;
  }

  /** After a failed start: drops every connection without waiting for anything. */
  private abandon(): void {
    void this.worker.close(true).catch(() => undefined);
    this.running.close();
    this.clock.stop();
    for (const connection of this.connections) connection.disconnect();
    this.redis.disconnect();
  }

  /** Stops taking jobs, lets the running ones finish, and disconnects. */
  async close(): Promise<void> {
    await Promise.all([this.worker.close(), this.watchdogs.stop()]);
    await Promise.all([this.finder.close(), this.deadLetters.close()]);
    this.running.close();
    this.clock.stop();
    for (const connection of this.connections) connection.disconnect();
    this.redis.disconnect();
  }

  private async process(job: Job, token: string | undefined): Promise<OutcomeMessage> {
    const startedAt = this.clock.now();
    let assignment: Assignment;
    try {
      assignment = this.assignments.read(job);
      await this.gate?.admit(job, assignment, this.clock.now());
    } catch (error) {
      this.assignments.forget(job.id!);
      if (!(error instanceof InvalidJobError)) throw error;
      // Refused for good: kept in the dead-letter queue first, then failed without a retry.
      const letter = await this.deadLetters.keep(job, error.message);
      this.log.warn('rejected a job', { queue: job.queueName, id: job.id, reason: error.message, dead_letter: letter });
      throw new UnrecoverableError(error.message);
    }
    // Listen for aborts before reading the cancellation mark: a canceller sets the mark, then
    // publishes, so one of the two always reaches this job.
    const controller = this.running.start(job.id!);
    let parked = false;
    try {
      // A delivery's receipt: a first start is surely one, and its receipt goes out in the same
      // write as the read below; a later start is one only if it has no step state (not a parent resuming).
      const firstStart = job.attemptsMade === 0 && (job.attemptsStarted ?? 1) <= 1;
      if (firstStart) this.audit.received(assignment, 1);
      const facts = await this.reader.read(job, this.lowerQueue !== null);
      if (!firstStart && facts.state === null) this.audit.received(assignment, job.attemptsMade + 1);
      if (facts.cached) return facts.cached;
      const crashes = crashesOf(job);
      if (facts.stop === null && isPoison(crashes, this.options.runtime.maxCrashes)) return await this.answerPoison(job, token, assignment, facts.state, crashes, startedAt);
      const span = this.processSpan(job, assignment, facts.state);
      try {
        const outcome = await this.run(job, token, assignment, facts, controller, startedAt, span);
        endWithOutcome(span, outcome, facts.state?.strategy ?? null);
        return outcome;
      } catch (error) {
        parked = error instanceof WaitingChildrenError;
        if (parked) span.end();
        else endForRetry(span, error, job.attemptsMade + 1);
        throw error;
      }
    } finally {
      this.running.finish(job.id!);
      // A parked parent resumes here, most likely; anything else is done with this pass's reading.
      if (!parked) this.assignments.forget(job.id!);
    }
  }

  /**
   * Poison work: its workers died `crashes` times running it. Answered without running the policy
   * again, from the policy's own record of a finished run if it has one, else `worker_crashed`.
   */
  private async answerPoison(job: Job, token: string | undefined, assignment: Assignment, state: StepState | null, crashes: number, startedAt: number): Promise<OutcomeMessage> {
    const span = this.processSpan(job, assignment, state);
    const lock = this.lockOf(job, token);
    const beads = this.beadsFor(lock);
    const context = this.contextFor(job, assignment, new AbortController().signal, trace.setSpan(ROOT_CONTEXT, span), beads);
    const recorded = state === null ? await this.options.handler.recorded?.(context) : null;
    this.log.warn(recorded ? 'answering poison work from its recorded outcome' : 'poison work answered failed, not run again', { id: job.id, crashes });
    if (state) await this.stopChildren(state, assignment);
    const outcome = await this.finish(job, assignment, state, { kind: 'outcome', outcome: recorded ?? crashedDraft(crashes) }, startedAt, { beads, received: [], lock });
    endWithOutcome(span, outcome, state?.strategy ?? null);
    return outcome;
  }

  /** A CONSUMER span per processing pass, child of the delegation's span; a resumed parent's pass links each child. */
  private processSpan(job: Job, assignment: Assignment, state: StepState | null): Span {
    const links = state ? state.children.map((child) => linkTo(child.trace)).filter((link): link is Link => link !== null) : null;
    // A root sent without an SDK carries no context: its first pass started the trace, and later passes join it.
    return startProcessSpan(
      deserialiseContext(job.opts.telemetry?.metadata ?? state?.trace),
      {
        messageId: assignment.id,
        correlationId: assignment.message?.correlation_id ?? assignment.rootId,
        rootId: assignment.rootId,
        tier: this.tier,
        queue: QUEUE_OF[this.tier],
        taskType: assignment.payload.task_type,
        specialist: this.tier === 'SPECIALIZED_FLEET' ? assignment.payload.specialist_hint : null,
        attempt: job.attemptsMade + 1,
      },
      links,
    );
  }

  private async run(
    job: Job,
    token: string | undefined,
    assignment: Assignment,
    facts: JobFacts,
    controller: AbortController,
    startedAt: number,
    span: Span,
  ): Promise<OutcomeMessage> {
    const answerBy = this.answerBy(job, assignment);
    const timer = answerBy === null ? undefined : setTimeout(() => controller.abort(timeUp(assignment)), Math.max(0, answerBy - this.clock.now()));
    // BullMQ's own per-job signal is left alone: it fires only on Worker.cancelJob, which Tierflow
    // never calls; cancellation and deadlines come through `controller`.
    // What the policy writes to Beads waits for the MULTI that sends its delegations or its outcome.
    const lock = this.lockOf(job, token);
    const beads = this.beadsFor(lock);
    const context = this.contextFor(job, assignment, controller.signal, trace.setSpan(ROOT_CONTEXT, span), beads);
    /** Outcomes this pass has read and not yet recorded in the audit trail. */
    let received: readonly SettledChild[] = [];
    let state = facts.state;
    let corrupt = facts.corrupt;
    let stop = facts.stop ?? (answerBy !== null && this.clock.now() >= answerBy ? timeUp(assignment) : null);
    let mode: CollectMode = 'wait';
    /** The children's answers read with the pass's facts, for its first collect; later ones read again. */
    let preread = facts.childValues;
    try {
      for (;;) {
        let step: Step;
        try {
          if (corrupt) {
            // Its children are unknown to it now: stop whatever it had running, and answer.
            await this.cancelChildren(job, assignment);
            step = { kind: 'outcome', outcome: failureDraft(corrupt, context.attempt) };
            corrupt = null;
          } else if (stop && state === null) step = { kind: 'outcome', outcome: stoppedDraft(stop) };
          else if (state === null) step = await withHop(context, () => this.options.handler.start(context));
          else {
            const values = preread;
            const round = await collectRound({
              job,
              lowerQueue: this.lowerQueue!,
              state,
              tier: this.tier,
              mode: stop ? 'settled-only' : mode,
              timedOut: (ids) => this.reader.timedOut(ids),
              signing: this.options.runtime.signing,
              childValues: () => values ?? this.reader.childValues(job),
              now: this.clock.now(),
            });
            preread = null;
            if (isPending(round)) {
              // A crash between saving a round and adding its children leaves some never added.
              if (round.absent.length > 0) await this.addChildren(job, assignment, round.absent);
              // Parked again on the same round: its watchdog must be there (a sweep may have let go of it while this pass ran).
              await this.keepWatch(job, state);
              if (await job.moveToWaitingChildren(token!)) throw PARKED;
              mode = 'give-up';
              continue;
            }
            received = round.children;
            step = stop ? { kind: 'outcome', outcome: stoppedDraft(stop, round.children, state.children.length) } : await this.resumeChecked(context, round, span);
          }
        } catch (error) {
          if (error instanceof WaitingChildrenError) throw error;
          const reason: unknown = controller.signal.reason;
          if (controller.signal.aborted && isStopReason(reason)) {
            // Cancelled or out of time: answer now, with what there is, and never retry.
            stop = reason;
            if (state !== null) continue;
            step = { kind: 'outcome', outcome: stoppedDraft(reason) };
          } else if (!isPermanent(error) && context.attempt < context.maxAttempts) throw error;
          else step = { kind: 'outcome', outcome: failureDraft(error, context.attempt) };
        }
        const stopped: unknown = controller.signal.reason;
        if (step.kind === 'delegate' && controller.signal.aborted && isStopReason(stopped)) {
          // Stopped while deciding: delegate nothing more.
          stop = stopped;
          if (state !== null) continue;
          step = { kind: 'outcome', outcome: stoppedDraft(stopped) };
        }
        const refusal = step.kind === 'delegate' ? this.refusal(step) : null;
        if (refusal) step = { kind: 'outcome', outcome: failureDraft(refusal, context.attempt) };
        const writes: PassWrites = { beads, received, lock };
        received = [];
        if (step.kind === 'outcome') return await this.finish(job, assignment, state, step, startedAt, writes);
        state = await this.delegate(job, assignment, state, step, answerBy, span, writes);
        mode = 'wait';
        // A cancellation that walked the tree while these children were being added missed them;
        // its mark is in place by now if its second walk missed them too (see cancelMessage).
        if (controller.signal.aborted || (await this.reader.cancelled([job.id!])).length > 0) await this.stopChildren(state, assignment);
        if (await job.moveToWaitingChildren(token!)) {
          span.setAttribute('tierflow.strategy', state.strategy);
          span.addEvent('waiting for children', { children: state.children.length, round: state.round });
          throw PARKED;
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** When this job must answer: its deadline (sent time + timeout_ms) less the receiver's margin. */
  private answerBy(job: Job, assignment: Assignment): number | null {
    const timeout = assignment.payload.timeout_ms;
    const sentAt = assignment.message ? Date.parse(assignment.message.timestamp) : job.timestamp;
    const deadline = deadlineOf(sentAt, timeout);
    return deadline === null || timeout === null ? null : deadline - receiverMarginMs(timeout);
  }

  private async resumePolicy(context: TierContext, round: SettledRound): Promise<Step> {
    if (!this.options.handler.resume) {
      return { kind: 'outcome', outcome: { status: 'failed', summary: `${this.tier} cannot resume delegated work`, confidence: 0 } };
    }
    return this.options.handler.resume(context, round);
  }

  /** Seed 003: upstream outcomes pass the cascade check before the policy reads them; the answer carries the gravest check. */
  private async resumeChecked(context: TierContext, round: SettledRound, span: Span): Promise<Step> {
    const checked = checkUpstream(round, this.tier, this.options.runtime.cascade);
    reportChecks(span, this.log, checked);
    return withCascadeCheck(await withHop(context, () => this.resumePolicy(context, checked.round)), checked.carried);
  }

  private async delegate(
    job: Job,
    assignment: Assignment,
    previous: StepState | null,
    step: Extract<Step, { kind: 'delegate' }>,
    answerBy: number | null,
    span: Span,
    writes: PassWrites,
  ): Promise<StepState> {
    if (!this.lowerQueue) throw new UnrecoverableError(`${this.tier} has no tier below`);
    const round = previous === null ? 0 : previous.round + 1;
    const now = this.clock.now();
    const messages = this.childMessages(
      assignment,
      step.children.map((request, index) => ({ id: childMessageId(assignment.id, round, index), request })),
      now,
    );
    const active = trace.setSpan(otelContext.active(), span);
    const traces = new Map(messages.map((message) => [message.id, delegationSpan(active, message, this.lowerQueue!.name, assignment.rootId)]));
    const state: StepState = {
      round,
      strategy: step.strategy,
      children: messages.map((message, index) => ({
        id: message.id,
        index,
        request: message.payload,
        deadline: deadlineOf(now, message.payload.timeout_ms),
        ...(traces.get(message.id) ? { trace: traces.get(message.id)! } : {}),
      })),
      memo: step.memo ?? {},
      answer_by: answerBy,
    };
    const own = previous?.trace ?? (job.opts.telemetry?.metadata ? undefined : serialiseContext(active));
    if (own) state.trace = own;
    const watchAt = nextWatch(state, null);
    const watch = { parentId: job.id!, parentTier: this.tier, round };
    if (watchAt !== null) state.watchdog = watchMember(watch);
    // State first: a crash after this write re-adds the same children (same ids) on the next try.
    const pipeline = new FencedBatch();
    this.steps.write(pipeline, job.id!, state);
    // The policy's Beads writes land with its delegations, before any child can read them.
    writes.beads.writeInto(pipeline);
    this.audit.outcomesReceived(pipeline, assignment, writes.received);
    this.audit.delegationsSent(pipeline, assignment.rootId, messages);
    if (previous?.watchdog) pipeline.zrem(this.keys.watchdogs(this.party), previous.watchdog);
    if (watchAt !== null) pipeline.zadd(this.keys.watchdogs(this.party), watchAt, watchMember(watch));
    const raceKey = roundKeyOf(messages[0]!.id);
    if (step.strategy === 'first_success' && raceKey) {
      pipeline.set(this.keys.race(this.party, raceKey), raceRecord(messages.map((message) => message.id), this.signer), 'PX', inFlightTtlMs(this.options.runtime));
    }
    if (this.tier === 'PROGRESS_MONITOR' && span.isRecording()) {
      pipeline.set(this.keys.trace(assignment.rootId), span.spanContext().traceId, 'PX', this.options.runtime.keepFinishedMs, 'NX');
    }
    await this.commit(pipeline, writes.lock);
    await addChildJobs(this.lowerQueue, childJobs(messages, job, this.options.runtime, step.delayMs ?? 0, traces));
    return state;
  }

  /** Puts the round's watchdog back if it is not in the set; one already there (due, or leased by a sweep) is left as it is. */
  private async keepWatch(job: Job, state: StepState): Promise<void> {
    const watchAt = nextWatch(state, null);
    if (watchAt === null) return;
    await this.redis.zadd(this.keys.watchdogs(this.party), 'NX', watchAt, watchMember({ parentId: job.id!, parentTier: this.tier, round: state.round }));
  }

  private lockOf(job: Job, token: string | undefined): PassLock {
    return { jobId: job.id!, key: lockKey(job), token: token ?? '' };
  }

  /**
   * The Beads a pass's policy writes to: its writes wait for the pass's commit, and those that
   * must go first (before a setIfAbsent or a delete) go out fenced by the pass's lock too.
   */
  private beadsFor(lock: PassLock): DeferredBeadsStore {
    const { prefix, beadsTtlMs } = this.options.runtime;
    return new DeferredBeadsStore(this.redis, { tier: this.tier, prefix, defaultTtlMs: beadsTtlMs }, async (queue) => {
      const batch = new FencedBatch();
      queue(batch);
      await this.commit(batch, lock);
    });
  }

  /** Sends a pass's writes, only while the pass still holds its job (see {@link FencedBatch}). */
  private async commit(batch: FencedBatch, lock: PassLock): Promise<unknown[]> {
    try {
      return await batch.commit(this.redis, lock.key, lock.token, lock.jobId);
    } catch (error) {
      if (error instanceof LockLostError) this.log.warn('lost its lock: another worker has the job; this pass wrote nothing', { id: lock.jobId });
      throw error;
    }
  }

  /** Seed 002's nested fan-out guard: only to the tier directly below, never from the Fleet, never nothing. */
  private refusal(step: Extract<Step, { kind: 'delegate' }>): TierflowError | null {
    const below = tierBelow(this.tier);
    const guard = checkDelegation(this.tier, below ?? this.tier);
    if (!guard.ok) return TierflowError.permanent(guard.reason, { code: 'delegation_refused' });
    if (step.children.length === 0) return TierflowError.permanent(`${this.tier} delegated no children`, { code: 'delegation_refused' });
    return null;
  }

  private async addChildren(job: Job, assignment: Assignment, children: readonly StepState['children'][number][]): Promise<void> {
    const traces = new Map(children.map((child) => [child.id, child.trace]));
    await addChildJobs(this.lowerQueue!, childJobs(this.childMessages(assignment, children, this.clock.now()), job, this.options.runtime, 0, traces));
  }

  /** Validated delegation messages; the root's children have no correlation id, since the root is not a message. */
  private childMessages(assignment: Assignment, children: readonly { id: string; request: DelegationDraft }[], now: number): DelegationMessage[] {
    const correlation = assignment.message ? assignment.id : null;
    return children.map((child) => buildDelegation(this.tier, child.id, correlation, child.request, now, this.signer));
  }

  private async finish(
    job: Job,
    assignment: Assignment,
    state: StepState | null,
    step: Extract<Step, { kind: 'outcome' }>,
    startedAt: number,
    writes: PassWrites,
  ): Promise<OutcomeMessage> {
    const now = this.clock.now();
    const built =
      this.tier === 'PROGRESS_MONITOR'
        ? // The root's outcome is what the Monitor received from the Architect, as the Monitor evaluated it.
          { ...buildOutcome('ABSTRACT_ARCHITECT', state?.children.at(-1)?.id ?? assignment.id, step.outcome, now - startedAt, now), id: outcomeMessageId(assignment.id) }
        : buildOutcome(this.tier, assignment.id, step.outcome, now - startedAt, now);
    // Signed before it is cached, so a duplicate delivery answered from the cache is signed too.
    const outcome = signRecord(withExpectedOutput(assignment.payload, built), this.signer);
    const raceKey = assignment.message ? roundKeyOf(assignment.id) : null;
    const parentParty = assignment.message ? partyOf(assignment.message.source_tier) : null;
    const pipeline = new FencedBatch();
    this.dedup.record(pipeline, assignment.id, outcome);
    writes.beads.writeInto(pipeline);
    this.audit.outcomesReceived(pipeline, assignment, writes.received);
    await this.audit.outcomeSent(pipeline, assignment, outcome);
    pipeline.del(this.steps.key(job.id!), ...this.settledRecords(job.id!, state));
    // The round settled: its watchdog has nothing left to do.
    if (state?.watchdog) pipeline.zrem(this.keys.watchdogs(this.party), state.watchdog);
    if (raceKey && parentParty) pipeline.get(this.keys.race(parentParty, raceKey));
    const replies = await this.commit(pipeline, writes.lock);
    const race = raceKey ? replies.at(-1) : null;
    if (typeof race === 'string' && raceKey && parentParty && outcome.payload.status === 'success') await this.winRace(assignment, raceKey, race, parentParty);
    return outcome;
  }

  /**
   * What this tier wrote for a job's work and can let go of once the job has answered (beside its
   * step state): the job's own timeout record and a first_success sibling's mark on it, and for its
   * children, the timeout records and cancellation marks this tier wrote, and its races. Records
   * other parties wrote (a parent's mark, the parent's timeout record, which the parent reads)
   * are theirs: they expire.
   */
  private settledRecords(jobId: string, state: StepState | null): string[] {
    const keys = [this.keys.timeout(this.party, jobId), this.keys.cancel(this.party, jobId)];
    for (const child of state?.children ?? []) keys.push(this.keys.timeout(this.party, child.id), this.keys.cancel(this.party, child.id));
    for (let round = 0; state && round <= state.round; round++) keys.push(this.keys.race(this.party, `${jobId}.${round}`));
    return keys;
  }

  /**
   * first_success: the first child to succeed cancels its siblings before it returns, so the
   * parent resumes as soon as they have answered, not when they would have finished.
   */
  private async winRace(assignment: Assignment, raceKey: string, race: string, parent: TierSlug): Promise<void> {
    const won = await this.redis.set(this.keys.raceWinner(this.party, raceKey), assignment.id, 'PX', this.options.runtime.keepFinishedMs, 'NX');
    if (won !== 'OK') return;
    const members = readRace(race, this.options.runtime.signing, parent);
    if (!members) {
      this.log.warn('ignored a first_success race record that is not its parent tier’s list of the round', { key: this.keys.race(parent, raceKey) });
      return;
    }
    const siblings = members.filter((id) => id !== assignment.id);
    // The mark names the winner: a sibling honours a mark by its own tier only from its round's winner.
    await Promise.all(siblings.map((id) => this.cancel(id, `${assignment.id} succeeded first (first_success)`, assignment.id)));
  }

  /** Cancels the children BullMQ still counts as pending for this job, when its own record of them is lost. */
  private async cancelChildren(job: Job, assignment: Assignment): Promise<void> {
    const below = tierBelow(this.tier);
    if (!below) return;
    for (const id of await pendingChildIds(this.finder, job, below)) await this.cancel(id, `${assignment.id} cannot read its own state`);
  }

  private async stopChildren(state: StepState, assignment: Assignment): Promise<void> {
    for (const child of state.children) await this.cancel(child.id, `${assignment.id} was stopped`);
  }

  /** Cancels a message's work (and all below it) in this tier's name. */
  private cancel(messageId: string, reason: string, winner?: string): Promise<unknown> {
    return cancelMessage(this.redis, this.finder, this.options.runtime.prefix, messageId, {
      now: this.clock.now(),
      reason,
      source: this.tier,
      writer: this.party,
      markTtlMs: inFlightTtlMs(this.options.runtime),
      signer: this.signer,
      ...(winner ? { winner } : {}),
    });
  }

  private async watch(watch: WatchdogJob): Promise<number | null> {
    const { redis, finder, steps, keys, party, signer } = this;
    const { prefix } = this.options.runtime;
    return runWatchdog({ redis, prefix, finder, steps, keys, party, markTtlMs: inFlightTtlMs(this.options.runtime), signer }, watch, this.clock.now());
  }

  private contextFor(job: Job, assignment: Assignment, signal: AbortSignal, traceContext: Context, beads: DeferredBeadsStore): TierContext {
    return {
      tier: this.tier,
      assignment,
      attempt: job.attemptsMade + 1,
      redelivered: job.attemptsMade > 0 || (job.attemptsStarted ?? 1) > 1,
      maxAttempts: job.opts.attempts ?? 1,
      signal,
      beads,
      log: this.log,
      traceContext,
      now: () => this.clock.now(),
    };
  }
}

/**
 * What a parked pass throws: BullMQ only checks its type, so one instance serves every pass and
 * no stack trace is captured each time (with async stack traces, a costly part of parking).
 */
const PARKED = new WaitingChildrenError();

/** How often each process looks for missed deadlines (they are already given 500 ms of grace). */
const WATCHDOG_SWEEP_MS = 250;

/** Runs a policy in its hop's context: with an async context manager, spans it starts without a parent nest there. */
function withHop<T>(context: TierContext, policy: () => Promise<T>): Promise<T> {
  return otelContext.with(context.traceContext, policy);
}

function timeUp(assignment: Assignment): StopReason {
  return { status: 'timeout', reason: `no answer within timeout_ms ${assignment.payload.timeout_ms}` };
}
