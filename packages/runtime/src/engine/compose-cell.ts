import { backoffDelay } from '@tierflow/core';
import { budgetSchema, formatValidationError, TierflowError, tierBelow, validateWith, type Budget, type OutcomeMessage } from '@tierflow/protocol';
import { Worker, type Job } from 'bullmq';
import { hostname } from 'node:os';
import type { RedisClient } from '@tierflow/beads';
import { AuditTrail } from '../audit/audit-trail.js';
import { budgetStopSweeper, rootBudgetOf } from '../budget/budget-stops.js';
import { UsageMeters } from '../budget/usage-meter.js';
import { RunningHandlers } from '../cancellation/control-listener.js';
import { TierCanceller } from '../cancellation/tier-canceller.js';
import { finishedJobRetention, inFlightTtlMs } from '../config/retention.js';
import { DEFAULT_CONCURRENCY } from '../config/runtime-settings.js';
import { DeadLetters } from '../dead-letters/dead-letters.js';
import type { RedisClock } from '../deadlines/clock.js';
import { parseWatchMember, runWatchdog, type WatchdogJob } from '../deadlines/watchdog.js';
import { WatchdogSweeper } from '../deadlines/watchdog-sweeper.js';
import { handoffChains } from '../handoff/chain.js';
import { QUEUE_OF } from '../messages/queues.js';
import { consoleLogger, errorKind, repeatedWarnings, throttledWarning } from '../observability/logger.js';
import type { TierHandler, TierLogger } from '../policy/handler.js';
import type { RuntimeOptions } from '../config/options.js';
import { connect } from '../redis/connection.js';
import { JobFinder } from '../redis/job-finder.js';
import { JobFinisher } from '../redis/job-finisher.js';
import { controlKeys } from '../redis/keys.js';
import { RoundSender } from '../redis/round-sender.js';
import { RunRecorder } from '../recording/run-recorder.js';
import { redisModelLimiter } from '../model-limits/limit-scripts.js';
import { RoomWaits, type RoomNotice } from '../model-limits/room-waits.js';
import { MessageGate } from '../security/message-gate.js';
import { partyOf } from '../security/party.js';
import { signerOf } from '../security/signing-keys.js';
import { StepStore } from '../steps/step-store.js';
import { Heartbeat } from '../workers/heartbeat.js';
import { AloneGate } from './alone-gate.js';
import { AssignmentMemo } from './assignment-memo.js';
import { CrashEvidence } from './crash-evidence.js';
import { stalledLimit } from './crash-guard.js';
import { DedupCache } from './dedup.js';
import { JobFactsReader } from './job-facts.js';
import { familyOf } from './job-family.js';
import type { Engine } from './pass.js';
import { PassWriter } from './pass-writer.js';
import { roleOf } from './role.js';
import { RunTraces } from './run-traces.js';
import type { NotifyOptions } from '../notify/delivery-policy.js';
import { RunNotices } from '../notify/run-notices.js';
import { WebhookDeliveryWorker, WebhookNotifier } from '../notify/webhook-queue.js';

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
  /** Where the process's own metrics are scraped (its Prometheus endpoint), for its heartbeat; none when left out. */
  readonly metricsUrl?: string | null;
  /** Lets a job suspected of killing its worker run alone; shared by a process's workers of the tier on every cell (one of its own when left out). */
  readonly gate?: AloneGate;
  /** The deployment's prefix when `runtime` is one cell's (a tier worker sets it): what every cell shares, the model limits, is under it. */
  readonly deploymentPrefix?: string;
  /**
   * The calls of this process waiting for room at a model, shared by its workers on every cell (a
   * waiter of one cell is woken by a room notice heard on any); one of its own when left out.
   */
  readonly roomWaits?: RoomWaits;
  /**
   * The deployment's webhooks (docs/operations.md#webhooks): events this worker sees are queued on
   * its cell's `notify` queue; the root's worker also delivers them. None when left out or empty.
   */
  readonly notify?: NotifyOptions;
}

/** How often each process looks for missed deadlines (they are already given 500 ms of grace). */
const WATCHDOG_SWEEP_MS = 250;

/** What one cell's worker is made of: the engine its passes share, and the services around it. */
export interface CellParts {
  readonly engine: Engine;
  readonly log: TierLogger;
  readonly worker: Worker;
  /** Assignments already validated, for parents resuming in this process. */
  readonly assignments: AssignmentMemo;
  /** Signature, clock and replay checks of each job; null when the deployment does not sign. */
  readonly gate: MessageGate | null;
  readonly deadLetters: DeadLetters;
  readonly finder: JobFinder;
  /** Answering passes' writes, sent with their job's completion. */
  readonly finisher: JobFinisher;
  readonly running: RunningHandlers;
  readonly aloneGate: AloneGate;
  /** What runs alone record, to tell poison from its bystanders (crash-guard.ts). */
  readonly crashEvidence: CrashEvidence;
  readonly watchdogs: WatchdogSweeper<WatchdogJob>;
  /** At the root: runs over their budget, to cancel (queued by whichever process saw it). */
  readonly budgetStops: WatchdogSweeper<string> | null;
  readonly heartbeat: Heartbeat;
  /** What queues webhook events, and at the root what delivers them; null without webhooks. */
  readonly webhooks: { readonly notifier: WebhookNotifier; readonly deliveries: WebhookDeliveryWorker | null } | null;
  /** Connections of our own: BullMQ leaves connections it was handed open, so we close them. */
  readonly connections: readonly RedisClient[];
}

/**
 * The composition root of a cell's worker: builds the engine and everything around it on
 * `redis`, with the BullMQ worker running `processJob` for each job. Nothing is started here.
 */
export function composeCell(options: CellWorkerOptions, redis: RedisClient, clock: RedisClock, processJob: (job: Job, token: string | undefined) => Promise<OutcomeMessage>): CellParts {
  const { handler, runtime } = options;
  const tier = handler.tier;
  const log = options.log ?? consoleLogger(QUEUE_OF[tier]);
  const party = partyOf(tier);
  const role = roleOf(tier);
  const signer = signerOf(runtime.signing, party);
  const keys = controlKeys(runtime.prefix);
  const steps = new StepStore(redis, runtime.prefix, party, inFlightTtlMs(runtime), runtime.signing);
  const dedup = new DedupCache(runtime.prefix, tier, runtime.dedupTtlMs);
  const audit = new AuditTrail(redis, runtime.prefix, tier, runtime.auditTtlMs, log, clock);
  // BullMQ's queues get a connection of their own: it loads BullMQ's scripts onto the connection,
  // and every MULTI on a connection copies all its scripts, which is costly on the hot path.
  const [queueRedis, workerRedis, subscriber] = [connect(runtime), connect(runtime), connect(runtime)];
  const finder = new JobFinder(queueRedis, runtime.prefix);
  const finisher = new JobFinisher(redis, familyOf(tier, keys, finder));
  const below = tierBelow(tier);
  const lowerQueue = below ? finder.queue(below) : null;
  const defaultRunBudget = defaultBudget(options.budget);
  const budgetOf = (job: Job): Budget | null => rootBudgetOf(job.data, job.id!, defaultRunBudget, runtime.signing);
  const reader = new JobFactsReader({ redis, keys, tier, dedup, steps, signing: runtime.signing, log, ...(role.kind === 'root' ? { budgetOf } : {}) });
  const canceller = new TierCanceller({ redis, finder, prefix: runtime.prefix, tier, party, signer, markTtlMs: inFlightTtlMs(runtime), now: () => clock.now() });
  const processId = `${hostname()}:${process.pid}`;
  // Calls here waiting for room at a model, woken by the room notices of settles in the cells this process serves.
  const roomWaits = options.roomWaits ?? new RoomWaits();
  const webhooks = webhooksOf(options, role.kind === 'root', queueRedis, log);
  const recorder = new RunRecorder({ redis, prefix: runtime.prefix, tier, mode: runtime.record, ttlMs: runtime.auditTtlMs, log, worker: processId });
  const engine: Engine = {
    tier,
    party,
    role,
    handler,
    runtime,
    redis,
    clock,
    log,
    lowerQueue,
    steps,
    dedup,
    audit,
    recorder,
    keys,
    signer,
    reader,
    canceller,
    limiter: redisModelLimiter(redis, options.deploymentPrefix ?? runtime.prefix, {
      waits: roomWaits,
      publish: (ids) => redis.spublish(keys.channel, JSON.stringify({ kind: 'room', ids: [...ids] } satisfies RoomNotice)),
    }),
    meters: new UsageMeters({ redis, keys, ttlMs: inFlightTtlMs(runtime), log }),
    budget: defaultRunBudget,
    ...(role.recordsRunTrace ? { traces: new RunTraces(redis, keys, runtime.keepFinishedMs, log) } : {}),
    ...(webhooks ? { notices: new RunNotices(webhooks.notifier, options.deploymentPrefix ?? runtime.prefix, log, () => clock.now()) } : {}),
    handoffs: handoffChains(runtime.interceptors),
    writer: new PassWriter({ redis, rounds: new RoundSender(redis, finder.queue(tier)), finisher, lowerQueue, log }),
  };
  const refusedNotice = throttledWarning(log, `dropped a malformed notice on ${keys.channel}`);
  const running = new RunningHandlers(subscriber, keys.channel, {
    marks: (ids) => reader.marks(ids),
    onUnread: (error) => log.warn('could not read the cancellation marks of a notice’s jobs; their handlers run on', { error: String(error) }),
    onRefused: (reason) => refusedNotice({ reason }),
    onRoom: (ids) => roomWaits.wake(ids),
  });
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const worker = new Worker(
    QUEUE_OF[tier],
    processJob,
    {
      connection: workerRedis,
      prefix: runtime.prefix,
      concurrency,
      autorun: false,
      lockDuration: options.lockDurationMs ?? runtime.lockDurationMs,
      stalledInterval: options.stalledIntervalMs ?? runtime.stalledIntervalMs,
      maxStalledCount: stalledLimit(runtime.maxCrashes, concurrency),
      removeOnComplete: finishedJobRetention(runtime),
      removeOnFail: finishedJobRetention(runtime),
      settings: { backoffStrategy: (attemptsMade: number) => backoffDelay(attemptsMade, runtime.retry, Math.random) },
    },
    finisher.backendFactory,
  );
  // While Redis refuses writes, every command fails alike: one line per kind of error and interval.
  const workerError = repeatedWarnings(log, 'worker error');
  worker.on('error', (error) => workerError(errorKind(error), { error: error.message }));
  worker.on('failed', (job, error) => log.warn('job failed', { id: job?.id, error: error.message }));
  // A root's answer is its run's end: `done` for the webhooks (queued by the process that completed it).
  const notices = engine.notices;
  if (notices && role.kind === 'root') worker.on('completed', (job, result) => notices.rootAnswered(job.id, result));
  const watchdogs = new WatchdogSweeper<WatchdogJob>({
    redis,
    key: keys.watchdogs(party),
    intervalMs: WATCHDOG_SWEEP_MS,
    parse: parseWatchMember,
    run: (watch) => runWatchdog({ redis, finder, steps, keys, party, markTtlMs: inFlightTtlMs(runtime), signer, canceller }, watch, clock.now()),
    onError: (error) => log.warn('watchdog error', { error: String(error) }),
    onMalformed: (member) => log.warn('dropped a malformed watchdog entry', { key: keys.watchdogs(party), member: member.slice(0, 200) }),
  });
  const budgetStops =
    role.kind === 'root'
      ? budgetStopSweeper({ redis, keys, canceller, rootJobKey: (id) => finder.queue(tier).toKey(id), defaultBudget: defaultRunBudget, signing: runtime.signing }, log, WATCHDOG_SWEEP_MS)
      : null;
  const heartbeat = new Heartbeat({
    redis,
    keys,
    slug: party,
    processId,
    tier,
    concurrency,
    specialists: options.specialists ?? null,
    metricsUrl: options.metricsUrl ?? null,
    running: () => running.size,
    intervalMs: runtime.heartbeatMs,
    now: () => clock.now(),
    log,
  });
  return {
    engine,
    log,
    worker,
    assignments: new AssignmentMemo(tier, undefined, runtime.limits),
    gate: runtime.signing ? new MessageGate(redis, runtime.prefix, tier, runtime.signing, runtime.dedupTtlMs) : null,
    deadLetters: new DeadLetters(queueRedis, runtime.prefix),
    finder,
    finisher,
    running,
    aloneGate: options.gate ?? new AloneGate(),
    crashEvidence: new CrashEvidence(redis, (jobId) => keys.crashes(party, jobId), inFlightTtlMs(runtime)),
    watchdogs,
    budgetStops,
    heartbeat,
    webhooks: webhooks ? { notifier: webhooks.notifier, deliveries: webhooks.deliveries } : null,
    connections: [queueRedis, workerRedis, subscriber, ...(webhooks?.connection ? [webhooks.connection] : [])],
  };
}

/** The default budget, checked once at start: a bad one is a configuration error, not a run's. */
function defaultBudget(budget: Budget | undefined): Budget | null {
  if (budget === undefined) return null;
  const parsed = validateWith(budgetSchema, budget);
  if (!parsed.ok) throw TierflowError.permanent(`invalid default budget: ${parsed.errors.map(formatValidationError).join('; ')}`, { code: 'invalid_config' });
  return parsed.value;
}

/** The webhooks' queue writer, and at the root their delivery worker on a connection of its own; null without subscriptions. */
function webhooksOf(options: CellWorkerOptions, root: boolean, queueRedis: RedisClient, log: TierLogger) {
  const notify = options.notify;
  if (!notify || notify.subscriptions.length === 0) return null;
  const { runtime } = options;
  const connection = root ? connect(runtime) : null;
  return {
    notifier: new WebhookNotifier(queueRedis, runtime.prefix, notify, log),
    deliveries: connection ? new WebhookDeliveryWorker(connection, runtime.prefix, notify, log) : null,
    connection,
  };
}
