import { backoffDelay } from '@tierflow/core';
import { budgetSchema, formatValidationError, TierflowError, tierBelow, validateWith, type Budget, type OutcomeMessage, type TierName } from '@tierflow/protocol';
import { DelayedError, UnrecoverableError, WaitingChildrenError, Worker, type Job } from 'bullmq';
import { pausedMs } from '../questions/questions.js';
import type { Span } from '@opentelemetry/api';
import type { RedisClient } from '@tierflow/beads';
import { AuditTrail } from '../audit/audit-trail.js';
import { controlKeys } from '../redis/keys.js';
import { RunningHandlers, type StopReason } from '../cancellation/control-listener.js';
import { TierCanceller } from '../cancellation/tier-canceller.js';
import type { RuntimeOptions } from '../config/options.js';
import { finishedJobRetention, inFlightTtlMs } from '../config/retention.js';
import { DEFAULT_CONCURRENCY } from '../config/runtime-settings.js';
import { DeadLetters } from '../dead-letters/dead-letters.js';
import { RedisClock } from '../deadlines/clock.js';
import { parseWatchMember, runWatchdog, type WatchdogJob } from '../deadlines/watchdog.js';
import { budgetStopSweeper, rootBudgetOf } from '../budget/budget-stops.js';
import { UsageMeters } from '../budget/usage-meter.js';
import { Heartbeat } from '../workers/heartbeat.js';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { WatchdogSweeper } from '../deadlines/watchdog-sweeper.js';
import { QUEUE_OF } from '../messages/queues.js';
import { consoleLogger, errorKind, repeatedWarnings, throttledWarning } from '../observability/logger.js';
import { endForRetry, endWithOutcome } from '../observability/tracing.js';
import type { Assignment, TierHandler, TierLogger } from '../policy/handler.js';
import { connect } from '../redis/connection.js';
import { LockLostError, type FencedBatch } from '../redis/fenced-batch.js';
import { JobFinder } from '../redis/job-finder.js';
import { JobFinisher } from '../redis/job-finisher.js';
import { familyOf } from './job-family.js';
import { RoundSender, type ChildJob } from '../redis/round-sender.js';
import { MessageGate } from '../security/message-gate.js';
import { partyOf } from '../security/party.js';
import { signerOf } from '../security/signing-keys.js';
import { answer } from './answer.js';
import { InvalidJobError } from '../messages/assignment.js';
import { AssignmentMemo } from './assignment-memo.js';
import { AloneGate } from './alone-gate.js';
import { CrashEvidence } from './crash-evidence.js';
import { crashedDraft, crashesOf, crashVerdict, runsAloneFrom, stalledLimit } from './crash-guard.js';
import { DedupCache } from './dedup.js';
import { JobFactsReader, type JobFacts } from './job-facts.js';
import { answerByOf, openPass, processSpan } from './open-pass.js';
import { openingPhase, type Terminal } from './pass-machine.js';
import type { Engine, PassLock } from './pass.js';
import { roleOf } from './role.js';
import { RunTraces } from './run-traces.js';
import { runPass, stopChildren } from './run-pass.js';
import { StepStore, type StepState } from '../steps/step-store.js';
import type { HandoffRefusedError } from '../handoff/chain.js';
import { receivedAssignment, reportRefusal } from './handoffs.js';
import { handoffChains } from '../handoff/chain.js';

export interface CellWorkerOptions {
  readonly handler: TierHandler;
  readonly runtime: RuntimeOptions;
  /** Jobs this process runs at once. */
  readonly concurrency?: number;
  readonly log?: TierLogger;
  /** BullMQ lock duration; a crashed worker's jobs are reclaimed after about this long. */
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  /**
   * The budget of runs whose objective sets none; an objective's own limits take the place of
   * these one by one. Read by the root tier (the Monitor), which owns each run's budget.
   */
  readonly budget?: Budget;
  /** What the worker serves, for its heartbeat (`tierflow workers`): the Fleet's specialists. */
  readonly specialists?: readonly string[];
  /** Lets a job suspected of killing its worker run alone; shared by a process's workers of the tier on every cell (one of its own when left out). */
  readonly gate?: AloneGate;
}

/**
 * One tier's worker on one cell (cells/cells.ts; a TierWorker runs one per cell it serves): a
 * BullMQ worker on the cell's queue of the tier that runs the tier's policy. A policy's
 * delegations become child jobs on the queue below; the parent parks in waiting-children and
 * resumes with their outcomes. Each job is checked and its facts read here; what happens next is
 * the engine's pass machine (pass-machine.ts, run by run-pass.ts). It also listens on the cell's
 * control channel (to abort cancelled handlers) and sweeps its tier's watchdogs in the cell.
 */
export class CellWorker {
  readonly tier: TierName;
  /** What the engine's passes share: the tier's policy, role, stores and helpers. */
  private readonly engine: Engine;
  private readonly worker: Worker;
  private readonly watchdogs: WatchdogSweeper<WatchdogJob>;
  /** At the root: runs over their budget, to cancel (queued by whichever process saw it). */
  private readonly budgetStops: WatchdogSweeper<string> | null;
  private readonly heartbeat: Heartbeat;
  /** Assignments already validated, for parents resuming in this process. */
  private readonly assignments: AssignmentMemo;
  /** Every message this tier sends or receives, appended to its run's audit stream. */
  private readonly audit: AuditTrail;
  /** Signature, clock and replay checks of each job; null when the deployment does not sign. */
  private readonly gate: MessageGate | null;
  private readonly finder: JobFinder;
  /** Answering passes' writes, sent with their job's completion. */
  private readonly finisher: JobFinisher;
  private readonly rounds: RoundSender;
  private readonly deadLetters: DeadLetters;
  /** Reads (and parses, and logs what it must ignore of) what the runtime keeps beside each job. */
  private readonly reader: JobFactsReader;
  private readonly running: RunningHandlers;
  private readonly aloneGate: AloneGate;
  /** What runs alone record, to tell poison from its bystanders (crash-guard.ts). */
  private readonly crashEvidence: CrashEvidence;
  private readonly log: TierLogger;
  /** Connections of our own: BullMQ leaves connections it was handed open, so we close them. */
  private readonly connections: RedisClient[];
  /** The steps of a close under way that have not finished (see {@link stillClosing}). */
  private readonly closing = new Set<string>();

  private constructor(
    private readonly options: CellWorkerOptions,
    private readonly redis: RedisClient,
    /** Redis's clock: every deadline this worker sets or checks is on it, whatever this host's clock says. */
    private readonly clock: RedisClock,
  ) {
    const { handler, runtime } = options;
    const tier = handler.tier;
    this.tier = tier;
    this.log = options.log ?? consoleLogger(QUEUE_OF[tier]);
    const party = partyOf(tier);
    const signer = signerOf(runtime.signing, party);
    const steps = new StepStore(redis, runtime.prefix, party, inFlightTtlMs(runtime), runtime.signing);
    const dedup = new DedupCache(runtime.prefix, tier, runtime.dedupTtlMs);
    this.assignments = new AssignmentMemo(tier, undefined, runtime.limits);
    this.audit = new AuditTrail(redis, runtime.prefix, tier, runtime.auditTtlMs, this.log, clock);
    this.gate = runtime.signing ? new MessageGate(redis, runtime.prefix, tier, runtime.signing, runtime.dedupTtlMs) : null;
    // BullMQ's queues get a connection of their own: it loads BullMQ's scripts onto the connection,
    // and every MULTI on a connection copies all its scripts, which is costly on the hot path.
    const [queueRedis, workerRedis, subscriber] = [connect(runtime), connect(runtime), connect(runtime)];
    this.connections = [queueRedis, workerRedis, subscriber];
    this.finder = new JobFinder(queueRedis, runtime.prefix);
    const keys = controlKeys(runtime.prefix);
    this.finisher = new JobFinisher(redis, familyOf(tier, keys, this.finder));
    this.rounds = new RoundSender(redis, this.finder.queue(tier));
    this.deadLetters = new DeadLetters(queueRedis, runtime.prefix);
    const defaultRunBudget = defaultBudget(options.budget);
    const budgetOf = (job: Job): Budget | null => rootBudgetOf(job.data, job.id!, defaultRunBudget, runtime.signing);
    this.aloneGate = options.gate ?? new AloneGate();
    this.crashEvidence = new CrashEvidence(redis, (jobId) => keys.crashes(party, jobId), inFlightTtlMs(runtime));
    this.reader = new JobFactsReader({ redis, keys, tier, dedup, steps, signing: runtime.signing, log: this.log, ...(roleOf(tier).kind === 'root' ? { budgetOf } : {}) });
    const below = tierBelow(tier);
    const canceller = new TierCanceller({ redis, finder: this.finder, prefix: runtime.prefix, tier, party, signer, markTtlMs: inFlightTtlMs(runtime), now: () => clock.now() });
    this.engine = {
      tier,
      party,
      role: roleOf(tier),
      handler,
      runtime,
      redis,
      clock,
      log: this.log,
      lowerQueue: below ? this.finder.queue(below) : null,
      steps,
      dedup,
      audit: this.audit,
      keys,
      signer,
      reader: this.reader,
      canceller,
      meters: new UsageMeters({ redis, keys, ttlMs: inFlightTtlMs(runtime), log: this.log }),
      budget: defaultRunBudget,
      ...(roleOf(tier).recordsRunTrace ? { traces: new RunTraces(redis, keys, runtime.keepFinishedMs, this.log) } : {}),
      handoffs: handoffChains(runtime.interceptors),
      commit: (batch, lock) => this.commit(batch, lock),
      sendRound: (batch, lock, children) => this.sendRound(batch, lock, children),
      finish: (batch, lock) => this.finisher.hold(lock.jobId, lock.token, batch),
    };
    const refusedNotice = throttledWarning(this.log, `dropped a malformed notice on ${keys.channel}`);
    this.running = new RunningHandlers(subscriber, keys.channel, {
      marks: (ids) => this.reader.marks(ids),
      onUnread: (error) => this.log.warn('could not read the cancellation marks of a notice’s jobs; their handlers run on', { error: String(error) }),
      onRefused: (reason) => refusedNotice({ reason }),
    });
    this.worker = new Worker(
      QUEUE_OF[this.tier],
      (job, token) => this.process(job, token),
      {
        connection: workerRedis,
        prefix: runtime.prefix,
        concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
        autorun: false,
        lockDuration: options.lockDurationMs ?? runtime.lockDurationMs,
        stalledInterval: options.stalledIntervalMs ?? runtime.stalledIntervalMs,
        maxStalledCount: stalledLimit(runtime.maxCrashes, options.concurrency ?? DEFAULT_CONCURRENCY),
        removeOnComplete: finishedJobRetention(runtime),
        removeOnFail: finishedJobRetention(runtime),
        settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(attemptsMade, runtime.retry, Math.random) },
      },
      this.finisher.backendFactory,
    );
    this.watchdogs = new WatchdogSweeper({
      redis,
      key: keys.watchdogs(party),
      intervalMs: WATCHDOG_SWEEP_MS,
      parse: parseWatchMember,
      run: (watch) => this.watch(watch),
      onError: (error) => this.log.warn('watchdog error', { error: String(error) }),
      onMalformed: (member) => this.log.warn('dropped a malformed watchdog entry', { key: keys.watchdogs(party), member: member.slice(0, 200) }),
    });
    this.budgetStops =
      this.engine.role.kind === 'root'
        ? budgetStopSweeper({ redis, keys, canceller, rootJobKey: (id) => this.finder.queue(tier).toKey(id), defaultBudget: defaultRunBudget, signing: runtime.signing }, this.log, WATCHDOG_SWEEP_MS)
        : null;
    this.heartbeat = new Heartbeat({
      redis,
      keys,
      slug: party,
      processId: `${hostname()}:${process.pid}`,
      tier,
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      specialists: options.specialists ?? null,
      running: () => this.running.size,
      intervalMs: runtime.heartbeatMs,
      now: () => clock.now(),
      log: this.log,
    });
    // While Redis refuses writes, every command fails alike: one line per kind of error and interval.
    const workerError = repeatedWarnings(this.log, 'worker error');
    this.worker.on('error', (error) => workerError(errorKind(error), { error: error.message }));
    this.worker.on('failed', (job, error) => this.log.warn('job failed', { id: job?.id, error: error.message }));
  }

  /**
   * Starts a worker and resolves once it is connected and taking jobs. If it cannot (Redis refuses
   * its password, say), it leaves no connection open, so that its process can exit.
   */
  static async start(options: CellWorkerOptions): Promise<CellWorker> {
    // A worker that cannot sign as its tier stops before it opens a connection that would keep it alive.
    signerOf(options.runtime.signing, partyOf(options.handler.tier));
    const redis = connect(options.runtime);
    let clock: RedisClock;
    try {
      clock = await RedisClock.start(redis);
    } catch (error) {
      redis.disconnect();
      throw error;
    }
    const cellWorker = new CellWorker(options, redis, clock);
    try {
      await cellWorker.running.listen();
      void cellWorker.worker.run().catch((error: unknown) => cellWorker.log.warn('worker stopped', { error: String(error) }));
      await cellWorker.worker.waitUntilReady();
    } catch (error) {
      cellWorker.abandon();
      throw error;
    }
    cellWorker.watchdogs.start();
    cellWorker.budgetStops?.start();
    cellWorker.heartbeat.start();
    return cellWorker;
  }

  /** After a failed start: drops every connection without waiting for anything. */
  private abandon(): void {
    void this.worker.close(true).catch(() => undefined);
    this.running.close();
    this.audit.gaps.stop();
    this.clock.stop();
    this.engine.traces?.close();
    for (const connection of this.connections) connection.disconnect();
    this.redis.disconnect();
  }

  /** Marks exported the runs whose traces this worker recorded, of `traceIds` (a telemetry exporter's news); never throws. */
  async tracesExported(traceIds: ReadonlySet<string>): Promise<void> {
    await this.engine.traces?.exported(traceIds);
  }

  /** Stops taking jobs, lets the running ones finish, and disconnects. */
  async close(): Promise<void> {
    const step = async (name: string, work: Promise<unknown> | undefined): Promise<void> => {
      this.closing.add(name);
      try {
        await work;
      } finally {
        this.closing.delete(name);
      }
    };
    await Promise.all([step('running jobs', this.worker.close()), step('watchdog sweeps', this.watchdogs.stop()), step('budget stops', this.budgetStops?.stop())]);
    // Gone from `tierflow workers` at once, not after three missed beats.
    await step('heartbeat', this.heartbeat.stop());
    await Promise.all([step('queue connections', this.finder.close()), step('dead-letter queue', this.deadLetters.close())]);
    this.running.close();
    this.audit.gaps.stop();
    this.clock.stop();
    this.engine.traces?.close();
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
    // A job its workers died holding runs alone from the death before the limit, so that a death
    // then is its own (crash-guard.ts); every other job waits meanwhile.
    const { maxCrashes } = this.options.runtime;
    const crashes = crashesOf(job);
    const alone = crashes >= runsAloneFrom(maxCrashes);
    let entered = false;
    let aloneMark: string | null = null;
    try {
      const entering = this.aloneGate.enter(alone);
      if (entering) await entering;
      entered = true;
      // A delivery's receipt: a first start is surely one, and its receipt goes out in the same
      // write as the read below; a later start is one only if it has no step state (not a parent resuming).
      const firstStart = job.attemptsMade === 0 && (job.attemptsStarted ?? 1) <= 1;
      if (firstStart) this.audit.received(assignment, 1);
      // A parent's first start has no children yet to read the answers of.
      const facts = await this.reader.read(job, this.engine.lowerQueue !== null && !firstStart);
      if (!firstStart && facts.state === null) this.audit.received(assignment, job.attemptsMade + 1);
      if (facts.cached) return facts.cached;
      if (alone) {
        aloneMark = token ?? randomUUID();
        const aloneDeaths = await this.crashEvidence.runAlone(job.id!, aloneMark);
        if (facts.stop === null && crashVerdict(crashes, aloneDeaths, maxCrashes) === 'answer-crashed')
          return await this.answerPoison({ job, token, assignment, startedAt }, facts.state, crashes, facts.race);
      }
      const received =
        this.engine.handoffs.receive || facts.state?.received ? await receivedAssignment(this.engine, assignment, facts, controller.signal) : { assignment, changed: false, refused: null };
      const delivery: Delivery = { job, token, assignment: received.assignment, changedOnReceipt: received.changed, startedAt };
      const span = processSpan(this.engine, job, assignment, facts.state);
      if (received.refused) reportRefusal(span, this.log, received.refused);
      let end: Terminal;
      try {
        end = await this.runPass(delivery, facts, controller, span, received.refused);
      } catch (error) {
        endForRetry(span, error, job.attemptsMade + 1);
        throw error;
      }
      switch (end.kind) {
        case 'answered':
          endWithOutcome(span, end.outcome, facts.state?.strategy ?? null);
          return end.outcome;
        case 'parked':
          parked = true;
          span.end();
          throw PARKED;
        case 'delayed':
          // Waiting for a person's answers: the next pass reads its state again.
          span.end();
          throw DELAYED;
        case 'retrying':
          endForRetry(span, end.error, job.attemptsMade + 1);
          throw end.error;
        default:
          return end satisfies never;
      }
    } catch (error) {
      // No completion follows a pass that throws: writes it held would wait for nothing.
      this.finisher.drop(job.id!);
      throw error;
    } finally {
      // Ended with this worker alive: not a death. Sent before BullMQ moves the job on.
      if (aloneMark !== null)
        await this.crashEvidence.ended(job.id!, aloneMark).catch((error: unknown) => this.log.warn('could not record the end of a run alone', { id: job.id, error: String(error) }));
      if (entered) this.aloneGate.leave(alone);
      this.running.finish(job.id!);
      // A parked parent resumes here, most likely; anything else is done with this pass's reading.
      if (!parked) this.assignments.forget(job.id!);
    }
  }

  /** Runs one pass of a job through the engine (pass-machine.ts), from what the job knows of itself. */
  private async runPass(delivery: Delivery, facts: JobFacts, controller: AbortController, span: Span, refused: HandoffRefusedError | null): Promise<Terminal> {
    const { job, assignment } = delivery;
    const waitedMs = pausedMs(facts.state, this.clock.now());
    const answerBy = answerByOf(job, assignment, waitedMs);
    // BullMQ's own per-job signal is left alone: it fires only on Worker.cancelJob, which Tierflow
    // never calls; cancellation and deadlines come through `controller`.
    const timer = answerBy === null ? undefined : setTimeout(() => controller.abort(timeUp(assignment)), Math.max(0, answerBy - this.clock.now()));
    try {
      const pass = openPass(this.engine, { ...delivery, signal: controller.signal, span, answerBy, waitedMs, childValues: facts.childValues, race: facts.race });
      const stop = facts.stop ?? (answerBy !== null && this.clock.now() >= answerBy ? timeUp(assignment) : null);
      return await runPass(this.engine, pass, openingPhase({ state: facts.state, corrupt: facts.corrupt, stop, refused }));
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Poison work: its workers died `crashes` times running it, once at least while it ran alone. Answered without running the policy
   * again, from the policy's own record of a finished run if it has one, else `worker_crashed`.
   */
  private async answerPoison(delivery: Delivery, state: StepState | null, crashes: number, race: string | null): Promise<OutcomeMessage> {
    const { job, assignment } = delivery;
    const span = processSpan(this.engine, job, assignment, state);
    const pass = openPass(this.engine, { ...delivery, signal: new AbortController().signal, span, answerBy: null, waitedMs: pausedMs(state, this.clock.now()), childValues: null, race });
    const recorded = state === null ? await this.options.handler.recorded?.(pass.context) : null;
    this.log.warn(recorded ? 'answering poison work from its recorded outcome' : 'poison work answered failed, not run again', { id: job.id, crashes });
    if (state) await stopChildren(this.engine, pass, state);
    const outcome = await answer(this.engine, pass, { kind: 'answering', state, draft: recorded ?? crashedDraft(crashes), received: [], stop: null });
    endWithOutcome(span, outcome, state?.strategy ?? null);
    return outcome;
  }

  /** What a close under way still waits for, for a worker slow to stop: its steps, and the jobs still running. */
  stillClosing(): string[] {
    const jobs = this.running.jobIds;
    return [...this.closing].map((step) => (step === 'running jobs' && jobs.length > 0 ? `running jobs (${jobs.join(', ')})` : step));
  }

  /** Sends a pass's writes, only while the pass still holds its job (see {@link FencedBatch}). */
  private commit(batch: FencedBatch, lock: PassLock): Promise<unknown[]> {
    return this.fenced(lock, () => batch.commit(this.redis, lock.key, lock.token, lock.jobId));
  }

  /** Sends a delegating pass's round, only while the pass still holds its job (see {@link RoundSender}). */
  private sendRound(batch: FencedBatch, lock: PassLock, children: readonly ChildJob[]) {
    return this.fenced(lock, () => this.rounds.send(batch, lock, this.engine.lowerQueue!, children));
  }

  /** Runs a fenced write, saying so when the pass has lost its job's lock. */
  private async fenced<T>(lock: PassLock, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof LockLostError) this.log.warn('lost its lock: another worker has the job; this pass wrote nothing', { id: lock.jobId });
      throw error;
    }
  }

  private async watch(watch: WatchdogJob): Promise<number | null> {
    const { redis, steps, keys, party, signer, canceller } = this.engine;
    return runWatchdog({ redis, finder: this.finder, steps, keys, party, markTtlMs: inFlightTtlMs(this.options.runtime), signer, canceller }, watch, this.clock.now());
  }
}

/** A job as this worker took it: checked, with the lock token of this delivery and when it began. */
interface Delivery {
  readonly job: Job;
  readonly token: string | undefined;
  readonly assignment: Assignment;
  /** Whether the receive interceptors changed the delegation (see PassInput). */
  readonly changedOnReceipt?: boolean;
  readonly startedAt: number;
}

/**
 * What a parked pass throws: BullMQ only checks its type, so one instance serves every pass and
 * no stack trace is captured each time (with async stack traces, a costly part of parking).
 */
const PARKED = new WaitingChildrenError();
/** What a pass that waits for answers throws (the job was moved to BullMQ's delayed set). */
const DELAYED = new DelayedError();

/** How often each process looks for missed deadlines (they are already given 500 ms of grace). */
const WATCHDOG_SWEEP_MS = 250;

function timeUp(assignment: Assignment): StopReason {
  return { status: 'timeout', reason: `no answer within timeout_ms ${assignment.payload.timeout_ms}` };
}

/** The default budget, checked once at start: a bad one is a configuration error, not a run's. */
function defaultBudget(budget: Budget | undefined): Budget | null {
  if (budget === undefined) return null;
  const parsed = validateWith(budgetSchema, budget);
  if (!parsed.ok) throw TierflowError.permanent(`invalid default budget: ${parsed.errors.map(formatValidationError).join('; ')}`, { code: 'invalid_config' });
  return parsed.value;
}
