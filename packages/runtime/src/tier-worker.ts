import { DeferredBeadsStore } from '@tierflow/beads';
import { backoffDelay, checkDelegation } from '@tierflow/core';
import { tierBelow, TierflowError, type DelegationMessage, type OutcomeMessage, type TierName } from '@tierflow/protocol';
import { UnrecoverableError, WaitingChildrenError, Worker, type Job, type Queue } from 'bullmq';
import { ROOT_CONTEXT, type Context, type Link, type Span } from '@opentelemetry/api';
import type { Redis } from 'ioredis';
import { InvalidJobError } from './assignment.js';
import { AssignmentMemo } from './assignment-memo.js';
import { AuditTrail } from './audit-trail.js';
import { cancelMessage } from './cancel.js';
import { addChildJobs, childJobs } from './child-jobs.js';
import { collectRound, isPending, type CollectMode } from './collect-round.js';
import { connect } from './connection.js';
import { controlKeys, roundKeyOf, type ControlKeys } from './control-keys.js';
import { checkControlRecord } from './control-records.js';
import { isStopReason, RunningHandlers, type StopReason } from './control-listener.js';
import { DeadLetters } from './dead-letters.js';
import { DedupCache } from './dedup.js';
import { withExpectedOutput } from './expected-output.js';
import { failureDraft, isPermanent, stoppedDraft } from './failures.js';
import type { Assignment, DelegationDraft, SettledChild, SettledRound, Step, TierContext, TierHandler, TierLogger } from './handler.js';
import { childMessageId, outcomeMessageId } from './ids.js';
import { JobFinder } from './job-finder.js';
import { consoleLogger } from './logger.js';
import { buildDelegation, buildOutcome } from './messages.js';
import { MessageGate } from './message-gate.js';
import { signRecord } from './signing.js';
import type { RuntimeOptions } from './options.js';
import { QUEUE_OF } from './queues.js';
import { finishedJobRetention, inFlightTtlMs } from './retention.js';
import { StepStore, type StepState } from './step-store.js';
import { deadlineOf, receiverMarginMs } from './timing.js';
import { checkUpstream, reportChecks, withCascadeCheck } from './upstream-check.js';
import { context as otelContext, deserialiseContext, delegationSpan, endForRetry, endWithOutcome, linkTo, serialiseContext, startProcessSpan, trace } from './tracing.js';
import { nextWatch, runWatchdog, watchMember, type WatchdogJob } from './watchdog.js';
import { WatchdogSweeper } from './watchdog-sweeper.js';

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
}

/** What a job knows of itself when it starts: its cached answer, whether it is stopped, its step. */
interface JobFacts {
  readonly cached: string | null;
  readonly stop: StopReason | null;
  readonly state: StepState | null;
  /** A parent's children's answers so far (BullMQ's processed values), read with the rest; null at the Fleet. */
  readonly childValues: Record<string, unknown> | null;
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
  private readonly running: RunningHandlers;
  private readonly log: TierLogger;
  /** Connections of our own: BullMQ leaves connections it was handed open, so we close them. */
  private readonly connections: Redis[];

  private constructor(
    private readonly options: TierWorkerOptions,
    private readonly redis: Redis,
  ) {
    const { handler, runtime } = options;
    this.tier = handler.tier;
    this.log = options.log ?? consoleLogger(QUEUE_OF[this.tier]);
    this.steps = new StepStore(redis, runtime.prefix, inFlightTtlMs(runtime));
    this.dedup = new DedupCache(redis, runtime.prefix, this.tier, runtime.dedupTtlMs);
    this.assignments = new AssignmentMemo(this.tier);
    this.audit = new AuditTrail(redis, runtime.prefix, this.tier, runtime.auditTtlMs, this.log);
    this.gate = runtime.signing ? new MessageGate(redis, runtime.prefix, this.tier, runtime.signing, runtime.dedupTtlMs) : null;
    // BullMQ's queues get a connection of their own: it loads BullMQ's scripts onto the connection,
    // and every MULTI on a connection copies all its scripts, which is costly on the hot path.
    const [queueRedis, workerRedis, subscriber] = [connect(runtime.redisUrl), connect(runtime.redisUrl), connect(runtime.redisUrl)];
    this.connections = [queueRedis, workerRedis, subscriber];
    this.finder = new JobFinder(queueRedis, runtime.prefix);
    this.deadLetters = new DeadLetters(queueRedis, runtime.prefix);
    this.keys = controlKeys(runtime.prefix);
    const below = tierBelow(this.tier);
    this.lowerQueue = below ? this.finder.queue(below) : null;
    this.running = new RunningHandlers(subscriber, this.keys.channel, runtime.signing ? (ids) => this.verifiedCancels(ids) : null);
    this.worker = new Worker(QUEUE_OF[this.tier], (job, token) => this.process(job, token), {
      connection: workerRedis,
      prefix: runtime.prefix,
      concurrency: options.concurrency ?? 8,
      autorun: false,
      lockDuration: options.lockDurationMs ?? runtime.lockDurationMs,
      stalledInterval: options.stalledIntervalMs ?? runtime.stalledIntervalMs,
      removeOnComplete: finishedJobRetention(runtime),
      removeOnFail: finishedJobRetention(runtime),
      settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(attemptsMade, runtime.retry, Math.random) },
    });
    this.watchdogs = new WatchdogSweeper({
      redis,
      key: this.keys.watchdogs,
      intervalMs: WATCHDOG_SWEEP_MS,
      run: (watch) => this.watch(watch),
      onError: (error) => this.log.warn('watchdog error', { error: String(error) }),
    });
    this.worker.on('error', (error) => this.log.warn('worker error', { error: error.message }));
    this.worker.on('failed', (job, error) => this.log.warn('job failed', { id: job?.id, error: error.message }));
  }

  /** Starts a worker and resolves once it is connected and taking jobs. */
  static async start(options: TierWorkerOptions): Promise<TierWorker> {
    const tierWorker = new TierWorker(options, connect(options.runtime.redisUrl));
    await tierWorker.running.listen();
    void tierWorker.worker.run().catch((error: unknown) => tierWorker.log.warn('worker stopped', { error: String(error) }));
    await tierWorker.worker.waitUntilReady();
    tierWorker.watchdogs.start();
    return tierWorker;
  }

  /** Stops taking jobs, lets the running ones finish, and disconnects. */
  async close(): Promise<void> {
    await Promise.all([this.worker.close(), this.watchdogs.stop()]);
    await Promise.all([this.finder.close(), this.deadLetters.close()]);
    this.running.close();
    for (const connection of this.connections) connection.disconnect();
    this.redis.disconnect();
  }

  private async process(job: Job, token: string | undefined): Promise<OutcomeMessage> {
    const startedAt = Date.now();
    let assignment: Assignment;
    try {
      assignment = this.assignments.read(job);
      await this.gate?.admit(job, assignment);
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
      const facts = await this.facts(job);
      if (!firstStart && facts.state === null) this.audit.received(assignment, job.attemptsMade + 1);
      const cached = facts.cached === null ? null : this.dedup.parse(facts.cached);
      if (cached) return cached;
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
    const timer = answerBy === null ? undefined : setTimeout(() => controller.abort(timeUp(assignment)), Math.max(0, answerBy - Date.now()));
    // BullMQ's own per-job signal is left alone: it fires only on Worker.cancelJob, which Tierflow
    // never calls; cancellation and deadlines come through `controller`.
    // What the policy writes to Beads waits for the MULTI that sends its delegations or its outcome.
    const beads = new DeferredBeadsStore(this.redis, { tier: this.tier, prefix: this.options.runtime.prefix, defaultTtlMs: this.options.runtime.beadsTtlMs });
    const context = this.contextFor(job, assignment, controller.signal, trace.setSpan(ROOT_CONTEXT, span), beads);
    /** Outcomes this pass has read and not yet recorded in the audit trail. */
    let received: readonly SettledChild[] = [];
    let state = facts.state;
    let stop = facts.stop ?? (answerBy !== null && Date.now() >= answerBy ? timeUp(assignment) : null);
    let mode: CollectMode = 'wait';
    /** The children's answers read with the pass's facts, for its first collect; later ones read again. */
    let preread = facts.childValues;
    try {
      for (;;) {
        let step: Step;
        try {
          if (stop && state === null) step = { kind: 'outcome', outcome: stoppedDraft(stop) };
          else if (state === null) step = await withHop(context, () => this.options.handler.start(context));
          else {
            const round = await collectRound(job, this.lowerQueue!, state, this.tier, stop ? 'settled-only' : mode, (ids) => this.timedOut(ids), this.options.runtime.signing, preread);
            preread = null;
            if (isPending(round)) {
              // A crash between saving a round and adding its children leaves some never added.
              if (round.absent.length > 0) await this.addChildren(job, assignment, round.absent);
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
        const writes: PassWrites = { beads, received };
        received = [];
        if (step.kind === 'outcome') return await this.finish(job, assignment, state, step, startedAt, writes);
        state = await this.delegate(job, assignment, state, step, answerBy, span, writes);
        mode = 'wait';
        // A cancellation that walked the tree while these children were being added missed them.
        if (controller.signal.aborted) await this.stopChildren(state, assignment);
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

  /**
   * One round trip opens a pass: the cached answer, the cancellation mark, the watchdog's timeout
   * record, the step state and, for a parent, its children's answers so far.
   */
  private async facts(job: Job): Promise<JobFacts> {
    const jobId = job.id!;
    // Sent together, these go in one write (see coalesceWrites) and come back in one round trip.
    const [[cached, storedCancel, storedTimeout, step], values] = await Promise.all([
      this.redis.mget(this.dedup.key(jobId), this.keys.cancel(jobId), this.keys.timeout(jobId), this.steps.key(jobId)),
      this.lowerQueue ? this.redis.hgetall(processedKey(job)) : null,
    ]);
    const cancel = this.trusted(storedCancel ?? null, jobId, 'cancellation mark');
    const timeout = this.trusted(storedTimeout ?? null, jobId, 'timeout record');
    const stop: StopReason | null = cancel ? { status: 'cancelled', reason: cancelReason(cancel) } : timeout ? { status: 'timeout', reason: 'ran out of time' } : null;
    return { cached: cached ?? null, stop, state: step ? this.steps.parse(step) : null, childValues: values && parseChildValues(values) };
  }

  private async timedOut(ids: readonly string[]): Promise<ReadonlySet<string>> {
    if (ids.length === 0) return new Set();
    const records = await this.redis.mget(...ids.map((id) => this.keys.timeout(id)));
    return new Set(ids.filter((id, index) => this.trusted(records[index] ?? null, id, 'timeout record') !== null));
  }

  /** A control record to act on, or null; one that does not verify (when signing) is ignored and logged. */
  private trusted(record: string | null, messageId: string, what: string): string | null {
    if (record === null) return null;
    const check = checkControlRecord(record, messageId, this.options.runtime.signing);
    if (check.ok) return record;
    this.log.warn(`ignored a ${what} that does not verify`, { id: messageId, reason: check.reason });
    return null;
  }

  /** The ids among these whose cancellation mark verifies. */
  private async verifiedCancels(ids: readonly string[]): Promise<readonly string[]> {
    const marks = await this.redis.mget(...ids.map((id) => this.keys.cancel(id)));
    return ids.filter((id, index) => this.trusted(marks[index] ?? null, id, 'cancellation mark') !== null);
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
    const now = Date.now();
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
    const pipeline = this.redis.multi();
    this.steps.write(pipeline, job.id!, state);
    // The policy's Beads writes land with its delegations, before any child can read them.
    writes.beads.writeInto(pipeline);
    this.audit.outcomesReceived(pipeline, assignment, writes.received);
    this.audit.delegationsSent(pipeline, assignment.rootId, messages);
    if (previous?.watchdog) pipeline.zrem(this.keys.watchdogs, previous.watchdog);
    if (watchAt !== null) pipeline.zadd(this.keys.watchdogs, watchAt, watchMember(watch));
    const raceKey = roundKeyOf(messages[0]!.id);
    if (step.strategy === 'first_success' && raceKey) {
      pipeline.set(this.keys.race(raceKey), JSON.stringify(messages.map((message) => message.id)), 'PX', inFlightTtlMs(this.options.runtime));
    }
    if (this.tier === 'PROGRESS_MONITOR' && span.isRecording()) {
      pipeline.set(this.keys.trace(assignment.rootId), span.spanContext().traceId, 'PX', this.options.runtime.keepFinishedMs, 'NX');
    }
    await pipeline.exec();
    await addChildJobs(this.lowerQueue, childJobs(messages, job, this.options.runtime, step.delayMs ?? 0, traces));
    return state;
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
    await addChildJobs(this.lowerQueue!, childJobs(this.childMessages(assignment, children, Date.now()), job, this.options.runtime, 0, traces));
  }

  /** Validated delegation messages; the root's children have no correlation id, since the root is not a message. */
  private childMessages(assignment: Assignment, children: readonly { id: string; request: DelegationDraft }[], now: number): DelegationMessage[] {
    const correlation = assignment.message ? assignment.id : null;
    return children.map((child) => buildDelegation(this.tier, child.id, correlation, child.request, now, this.options.runtime.signing));
  }

  private async finish(
    job: Job,
    assignment: Assignment,
    state: StepState | null,
    step: Extract<Step, { kind: 'outcome' }>,
    startedAt: number,
    writes: PassWrites,
  ): Promise<OutcomeMessage> {
    const now = Date.now();
    const built =
      this.tier === 'PROGRESS_MONITOR'
        ? // The root's outcome is what the Monitor received from the Architect, as the Monitor evaluated it.
          { ...buildOutcome('ABSTRACT_ARCHITECT', state?.children.at(-1)?.id ?? assignment.id, step.outcome, now - startedAt, now), id: outcomeMessageId(assignment.id) }
        : buildOutcome(this.tier, assignment.id, step.outcome, now - startedAt, now);
    // Signed before it is cached, so a duplicate delivery answered from the cache is signed too.
    const outcome = signRecord(withExpectedOutput(assignment.payload, built), this.options.runtime.signing);
    const raceKey = assignment.message ? roundKeyOf(assignment.id) : null;
    const pipeline = this.redis.multi();
    this.dedup.record(pipeline, assignment.id, outcome);
    writes.beads.writeInto(pipeline);
    this.audit.outcomesReceived(pipeline, assignment, writes.received);
    await this.audit.outcomeSent(pipeline, assignment, outcome);
    pipeline.del(this.steps.key(job.id!), ...this.settledRecords(job.id!, state));
    // The round settled: its watchdog has nothing left to do.
    if (state?.watchdog) pipeline.zrem(this.keys.watchdogs, state.watchdog);
    if (raceKey) pipeline.get(this.keys.race(raceKey));
    const replies = await pipeline.exec();
    const race = raceKey ? (replies?.at(-1)?.[1] as string | null) : null;
    if (race && raceKey && outcome.payload.status === 'success') await this.winRace(assignment, raceKey, race);
    return outcome;
  }

  /**
   * What this job's work leaves behind once it has answered (beside its step state): its own cancellation mark, its
   * children's timeout records and its races. Its own timeout record stays for its parent to
   * read, unless it is the root.
   */
  private settledRecords(jobId: string, state: StepState | null): string[] {
    const keys = [this.keys.cancel(jobId)];
    if (this.tier === 'PROGRESS_MONITOR') keys.push(this.keys.timeout(jobId));
    for (const child of state?.children ?? []) keys.push(this.keys.timeout(child.id));
    for (let round = 0; state && round <= state.round; round++) {
      keys.push(this.keys.race(`${jobId}.${round}`), this.keys.raceWinner(`${jobId}.${round}`));
    }
    return keys;
  }

  /**
   * first_success: the first child to succeed cancels its siblings before it returns, so the
   * parent resumes as soon as they have answered, not when they would have finished.
   */
  private async winRace(assignment: Assignment, raceKey: string, race: string): Promise<void> {
    const won = await this.redis.set(this.keys.raceWinner(raceKey), assignment.id, 'PX', this.options.runtime.keepFinishedMs, 'NX');
    if (won !== 'OK') return;
    const siblings = (JSON.parse(race) as string[]).filter((id) => id !== assignment.id);
    const source = assignment.message?.source_tier ?? 'PROGRESS_MONITOR';
    await Promise.all(
      siblings.map((id) =>
        cancelMessage(this.redis, this.finder, this.options.runtime.prefix, id, {
          reason: `${assignment.id} succeeded first (first_success)`,
          source,
          markTtlMs: inFlightTtlMs(this.options.runtime),
          signing: this.options.runtime.signing,
        }),
      ),
    );
  }

  private async stopChildren(state: StepState, assignment: Assignment): Promise<void> {
    for (const child of state.children) {
      await cancelMessage(this.redis, this.finder, this.options.runtime.prefix, child.id, {
        reason: `${assignment.id} was stopped`,
        source: this.tier,
        markTtlMs: inFlightTtlMs(this.options.runtime),
        signing: this.options.runtime.signing,
      });
    }
  }

  private async watch(watch: WatchdogJob): Promise<number | null> {
    const { redis, finder, steps } = this;
    const { prefix, signing } = this.options.runtime;
    return runWatchdog({ redis, finder, steps, prefix, markTtlMs: inFlightTtlMs(this.options.runtime), signing }, watch, Date.now());
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
      now: () => Date.now(),
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

/** BullMQ's hash of a parent's processed children's return values (what `Job.getChildrenValues` reads). */
function processedKey(job: Job): string {
  return `${job.queueQualifiedName}:${job.id}:processed`;
}

/** The processed values as `Job.getChildrenValues` gives them: each parsed from JSON. */
function parseChildValues(raw: Record<string, string>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) values[key] = JSON.parse(value) as unknown;
  return values;
}

function timeUp(assignment: Assignment): StopReason {
  return { status: 'timeout', reason: `no answer within timeout_ms ${assignment.payload.timeout_ms}` };
}

function cancelReason(mark: string): string {
  try {
    const reason = (JSON.parse(mark) as { payload?: { reason?: unknown } }).payload?.reason;
    return typeof reason === 'string' ? reason : 'cancelled';
  } catch {
    return 'cancelled';
  }
}
