import { TIER_SLUGS, type OutcomeMessage, type TierflowError, type TierName } from '@tierflow/protocol';
import { DelayedError, UnrecoverableError, WaitingChildrenError, type Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import type { Span } from '@opentelemetry/api';
import type { RedisClient } from '@tierflow/beads';
import type { StopReason } from '../cancellation/control-listener.js';
import { RedisClock } from '../deadlines/clock.js';
import { InvalidJobError } from '../messages/assignment.js';
import { endForRetry, endWithOutcome } from '../observability/tracing.js';
import { watchRunning } from '../observability/tier-instruments.js';
import { deadLettered, hopEnded, hopQueued, retried, runFinished } from '../observability/tier-metrics.js';
import type { Assignment } from '../policy/handler.js';
import { pausedMs } from '../questions/questions.js';
import { connect } from '../redis/connection.js';
import { partyOf } from '../security/party.js';
import { signerOf } from '../security/signing-keys.js';
import { composeCell, type CellParts, type CellWorkerOptions } from './compose-cell.js';
import { crashesOf, crashVerdict, runsAloneFrom } from './crash-guard.js';
import { receivedAssignment, reportRefusal } from './handoffs.js';
import { attestationRefused, pinRefused } from './attestation-gate.js';
import { refusalRecorded } from '../audit/audit-refusals.js';
import type { JobFacts } from './job-facts.js';
import { answerByOf, openPass, processSpan } from './open-pass.js';
import { openingPhase, type Terminal } from './pass-machine.js';
import { runPass } from './run-pass.js';
import { recordPassEnd } from './record-pass.js';
import { wokenFromDefer } from './defer.js';
import type { PassEnd } from '../recording/record-entry.js';
import { nodeRerun, type NodeRerun } from '../rerun/node-rerun.js';
import { readReused, type Reused } from '../rerun/reuse.js';

/**
 * One tier's worker on one cell (cells/cells.ts; a TierWorker runs one per cell it serves): the
 * adapter between BullMQ and the engine. Each job is checked and its facts read here; what
 * happens next is the engine's pass machine (pass-machine.ts, run by run-pass.ts), from the phase
 * those facts open with. What the worker is made of is built in compose-cell.ts.
 */
export class CellWorker {
  readonly tier: TierName;
  private readonly parts: CellParts;
  /** The steps of a close under way that have not finished (see {@link stillClosing}). */
  private readonly closing = new Set<string>();
  /** Takes this worker's running jobs out of the process's running-jobs gauge. */
  private unwatchRunning: () => void = () => undefined;

  private constructor(
    options: CellWorkerOptions,
    private readonly redis: RedisClient,
    /** Redis's clock: every deadline this worker sets or checks is on it, whatever this host's clock says. */
    private readonly clock: RedisClock,
  ) {
    this.tier = options.handler.tier;
    this.parts = composeCell(options, redis, clock, (job, token) => this.process(job, token));
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
    const { running, worker, watchdogs, budgetStops, heartbeat, log, webhooks } = cellWorker.parts;
    try {
      await running.listen();
      void worker.run().catch((error: unknown) => log.warn('worker stopped', { error: String(error) }));
      await worker.waitUntilReady();
      await webhooks?.deliveries?.start();
    } catch (error) {
      void worker.close(true).catch(() => undefined);
      void webhooks?.deliveries?.close().catch(() => undefined);
      cellWorker.disconnect();
      throw error;
    }
    watchdogs.start();
    budgetStops?.start();
    heartbeat.start();
    cellWorker.unwatchRunning = watchRunning(TIER_SLUGS[cellWorker.tier], () => running.size);
    return cellWorker;
  }

  /** Marks exported the runs whose traces this worker recorded, of `traceIds` (a telemetry exporter's news); never throws. */
  async tracesExported(traceIds: ReadonlySet<string>): Promise<void> {
    await this.parts.engine.traces?.exported(traceIds);
  }

  /** Stops taking jobs, lets the running ones finish, and disconnects. */
  async close(): Promise<void> {
    const { worker, watchdogs, budgetStops, heartbeat, finder, deadLetters, webhooks } = this.parts;
    const step = async (name: string, work: Promise<unknown> | undefined): Promise<void> => {
      this.closing.add(name);
      try {
        await work;
      } finally {
        this.closing.delete(name);
      }
    };
    await Promise.all([
      step('running jobs', worker.close()),
      step('watchdog sweeps', watchdogs.stop()),
      step('budget stops', budgetStops?.stop()),
      step('webhook deliveries', webhooks?.deliveries?.close()),
    ]);
    // Gone from `tierflow workers` at once, not after three missed beats.
    await step('heartbeat', heartbeat.stop());
    await Promise.all([step('queue connections', finder.close()), step('dead-letter queue', deadLetters.close()), step('webhook queue', webhooks?.notifier.close())]);
    this.disconnect();
  }

  /** What a close under way still waits for, for a worker slow to stop: its steps, and the jobs still running. */
  stillClosing(): string[] {
    const jobs = this.parts.running.jobIds;
    return [...this.closing].map((step) => (step === 'running jobs' && jobs.length > 0 ? `running jobs (${jobs.join(', ')})` : step));
  }

  /** Drops every connection and timer, without waiting for anything. */
  private disconnect(): void {
    const { running, engine, connections } = this.parts;
    this.unwatchRunning();
    running.close();
    engine.audit.gaps.stop();
    this.clock.stop();
    engine.traces?.close();
    for (const connection of connections) connection.disconnect();
    this.redis.disconnect();
  }

  /** One delivery of a job: checked, its facts read, then one pass through the engine. */
  private async process(job: Job, token: string | undefined): Promise<OutcomeMessage> {
    const { engine, assignments, gate, deadLetters, running, aloneGate, crashEvidence, finisher, log } = this.parts;
    const startedAt = this.clock.now();
    let assignment: Assignment;
    try {
      assignment = assignments.read(job);
      await gate?.admit(job, assignment, this.clock.now());
    } catch (error) {
      assignments.forget(job.id!);
      if (!(error instanceof InvalidJobError)) throw error;
      // Refused for good: kept in the dead-letter queue first, then failed without a retry.
      const letter = await deadLetters.keep(job, error.message);
      deadLettered(this.tier, error.message);
      // On the run's own record too; a trail Redis will not take it on loses nothing (the letter holds it).
      const refusal = { jobId: job.id!, queue: job.queueName, reason: error.message, deadLetter: letter, time: new Date(this.clock.now()).toISOString() };
      await refusalRecorded(this.redis, engine.runtime.prefix, this.tier, refusal, engine.runtime.auditTtlMs).catch((problem: unknown) =>
        log.warn('could not record a refusal on its run', { id: job.id, error: String(problem) }),
      );
      log.warn('rejected a job', { queue: job.queueName, id: job.id, reason: error.message, dead_letter: letter });
      throw new UnrecoverableError(error.message);
    }
    // Listen for aborts before reading the cancellation mark: a canceller sets the mark, then
    // publishes, so one of the two always reaches this job.
    const controller = running.start(job.id!);
    let parked = false;
    // A job its workers died holding runs alone from the death before the limit, so that a death
    // then is its own (crash-guard.ts); every other job waits meanwhile.
    const { maxCrashes } = engine.runtime;
    const crashes = crashesOf(job);
    const alone = crashes >= runsAloneFrom(maxCrashes);
    let entered = false;
    let aloneMark: string | null = null;
    try {
      const entering = aloneGate.enter(alone);
      if (entering) await entering;
      entered = true;
      // A delivery's receipt: a first start is surely one, and its receipt goes out in the same
      // write as the read below; a later start is one only if it has no step state (not a parent resuming).
      const firstStart = job.attemptsMade === 0 && (job.attemptsStarted ?? 1) <= 1;
      if (firstStart) {
        engine.audit.received(assignment, 1);
        // Queued from when the job was added until this worker took it: once per delivery of the work.
        if (Number.isFinite(job.timestamp)) hopQueued(this.tier, (startedAt - job.timestamp) / 1000);
      }
      // A parent's first start has no children yet to read the answers of.
      const facts = await engine.reader.read(job, engine.lowerQueue !== null && !firstStart);
      // A job woken from a wait for room (defer.ts) was received when its attempt began.
      const woken = wokenFromDefer(facts.deferred, job.attemptsMade + 1);
      if (!firstStart && facts.state === null && !woken) engine.audit.received(assignment, job.attemptsMade + 1);
      // A duplicate delivery of a job that answered: not a pass, but the answer it gave.
      if (facts.cached) return facts.cached;
      let poison: number | null = null;
      if (alone) {
        aloneMark = token ?? randomUUID();
        const aloneDeaths = await crashEvidence.runAlone(job.id!, aloneMark);
        if (facts.stop === null && crashVerdict(crashes, aloneDeaths, maxCrashes) === 'answer-crashed') poison = crashes;
      }
      const rerun = facts.rerun ? nodeRerun(facts.rerun, job.id!, assignment.rootId) : null;
      // A fork's node takes its rerun's edits, as it takes what the receive interceptors make of it.
      const edits = rerun?.forkNode ? rerun.spec.edits : [];
      const span = processSpan(engine.tier, engine.role, job, assignment, facts.state, engine.runtime.genAi.conventions);
      // Its governance attestation is checked as the work arrives, unless it is stopped already
      // (docs/protocol.md#attestations); a delegation refused for it goes to no interceptor.
      // So is the agent it pins, where a tier above the Fleet is pinned (security/tier-pins.ts).
      const unattested =
        facts.state === null && facts.stop === null && poison === null
          ? ((await attestationRefused({ redis: this.redis, prefix: engine.runtime.prefix, attesting: engine.runtime, log }, assignment, span, this.clock.now())) ??
            pinRefused(engine.tier, assignment, engine.runtime.governance, span, log))
          : null;
      // Poison work is not handed to the receive interceptors either: what killed its workers may be one of them.
      const received =
        unattested === null && poison === null && (engine.handoffs.receive || facts.state?.received || edits.length > 0)
          ? await receivedAssignment(engine, assignment, facts, controller.signal, edits)
          : { assignment, changed: false, refused: null };
      if (received.refused) reportRefusal(span, log, received.refused);
      // A fork's node outside the fork's subtree answers with its original's outcome, on its first pass.
      const reused =
        rerun?.role === 'reuse' && facts.state === null && poison === null
          ? await readReused(this.redis, engine.keys.rerun(assignment.rootId).reuse, rerun, engine.tier, engine.runtime.signing, this.clock.now())
          : null;
      const delivery: Delivery = { job, token, assignment: received.assignment, changedOnReceipt: received.changed, startedAt, receipt: firstStart || (facts.state === null && !woken), rerun, reused };
      let end: Terminal;
      try {
        end = await this.runPass(delivery, facts, controller, span, unattested ?? received.refused, poison);
      } catch (error) {
        endForRetry(span, error, job.attemptsMade + 1);
        hopEnded(this.tier, 'errored', (this.clock.now() - startedAt) / 1000);
        throw error;
      }
      const now = this.clock.now();
      switch (end.kind) {
        case 'answered': {
          endWithOutcome(span, end.outcome, facts.state?.strategy ?? null);
          const { status, error_type } = end.outcome.payload;
          hopEnded(this.tier, { status, errorType: error_type ?? null }, (now - startedAt) / 1000);
          // The root's answer is its run's final outcome; a run is timed from its root's enqueueing.
          if (delivery.assignment.message === null) runFinished(status, Number.isFinite(job.timestamp) ? (now - job.timestamp) / 1000 : 0);
          return end.outcome;
        }
        case 'parked':
          parked = true;
          span.end();
          hopEnded(this.tier, 'parked', (now - startedAt) / 1000);
          throw PARKED;
        case 'delayed':
          // Waiting for a person's answers: the next pass reads its state again.
          span.end();
          hopEnded(this.tier, 'asked', (now - startedAt) / 1000);
          throw DELAYED;
        case 'deferred':
          // Waiting for room (its model's): the next pass starts afresh.
          span.end();
          hopEnded(this.tier, 'deferred', (now - startedAt) / 1000);
          throw DELAYED;
        case 'retrying':
          endForRetry(span, end.error, job.attemptsMade + 1);
          hopEnded(this.tier, 'retrying', (now - startedAt) / 1000);
          retried(this.tier);
          throw end.error;
        default:
          return end satisfies never;
      }
    } catch (error) {
      // No completion follows a pass that throws: writes it held would wait for nothing.
      finisher.drop(job.id!);
      throw error;
    } finally {
      // Ended with this worker alive: not a death. Sent before BullMQ moves the job on.
      if (aloneMark !== null) await crashEvidence.ended(job.id!, aloneMark).catch((error: unknown) => log.warn('could not record the end of a run alone', { id: job.id, error: String(error) }));
      if (entered) aloneGate.leave(alone);
      running.finish(job.id!);
      // A parked parent resumes here, most likely; anything else is done with this pass's reading.
      if (!parked) assignments.forget(job.id!);
    }
  }

  /** Runs one pass of a job through the engine (pass-machine.ts), from what the job knows of itself. */
  private async runPass(delivery: Delivery, facts: JobFacts, controller: AbortController, span: Span, refused: TierflowError | null, poison: number | null): Promise<Terminal> {
    const { engine } = this.parts;
    const { job, assignment } = delivery;
    const waitedMs = pausedMs(facts.state, this.clock.now());
    // Poison work answers whatever the time: no deadline stops it.
    const answerBy = poison === null ? answerByOf(job, assignment, waitedMs) : null;
    // BullMQ's own per-job signal is left alone: it fires only on Worker.cancelJob, which Tierflow
    // never calls; cancellation and deadlines come through `controller`.
    const timer = answerBy === null ? undefined : setTimeout(() => controller.abort(timeUp(assignment)), Math.max(0, answerBy - this.clock.now()));
    try {
      // Only a job with no round may leave its worker to wait for its model: started afresh, it loses nothing.
      const parkAs = facts.state === null && poison === null ? `${job.id!}#${job.attemptsMade + 1}` : null;
      const pass = openPass(engine, { ...delivery, signal: controller.signal, span, answerBy, waitedMs, childValues: facts.childValues, race: facts.race, parkAs });
      const stop = facts.stop ?? (answerBy !== null && this.clock.now() >= answerBy ? timeUp(assignment) : null);
      let end: Terminal;
      try {
        end = await runPass(engine, pass, openingPhase({ state: facts.state, corrupt: facts.corrupt, stop, refused, poison }));
      } catch (error) {
        recordPassEnd(engine, pass, 'errored', error);
        throw error;
      }
      // An answer is recorded with its writes (answer.ts); any other end, now.
      if (end.kind !== 'answered') recordPassEnd(engine, pass, PASS_END[end.kind], end.kind === 'retrying' ? end.error : null);
      return end;
    } finally {
      clearTimeout(timer);
    }
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
  /** A delivery of the work (not a parent resuming): its delegation goes on the node's record. */
  readonly receipt: boolean;
  /** Its part in a rerun, when its run reruns another (rerun/node-rerun.ts). */
  readonly rerun: NodeRerun | null;
  /** In a fork, the outcome it answers with instead of running (rerun/reuse.ts). */
  readonly reused: Reused | null;
}

/** How each end of a pass but an answer is recorded. */
const PASS_END: Record<Exclude<Terminal['kind'], 'answered'>, PassEnd> = { parked: 'parked', delayed: 'asked', deferred: 'deferred', retrying: 'retrying' };

/**
 * What a parked pass throws: BullMQ only checks its type, so one instance serves every pass and
 * no stack trace is captured each time (with async stack traces, a costly part of parking).
 */
const PARKED = new WaitingChildrenError();
/** What a pass that waits for answers or for room throws (the job was moved to BullMQ's delayed set). */
const DELAYED = new DelayedError();

function timeUp(assignment: Assignment): StopReason {
  return { status: 'timeout', reason: `no answer within timeout_ms ${assignment.payload.timeout_ms}` };
}
