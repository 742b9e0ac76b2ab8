import { formatValidationError, TIER_SLUGS, TierflowError, validateWith, type OutcomeMessage, type TierName, type TierSlug } from '@tierflow/protocol';
import { type Queue } from 'bullmq';
import { z } from 'zod';
import { BeadsStore, type RedisClient } from '@tierflow/beads';
import { cancelMessage, type CancelReport } from '../cancellation/cancel.js';
import { RedisClock } from '../deadlines/clock.js';
import { CLIENT } from '../security/party.js';
import { jobOptions } from '../engine/child-jobs.js';
import { inFlightTtlMs } from '../config/retention.js';
import { DeadLetters } from '../dead-letters/dead-letters.js';
import { controlKeys } from '../redis/keys.js';
import { context, rootSpan, serialiseContext, trace } from '../observability/tracing.js';
import { JobFinder } from '../redis/job-finder.js';
import { connect, redisWhere } from '../redis/connection.js';
import { awaitReachable } from '../redis/reach.js';
import { isTlsUrl } from '../redis/redis-url.js';
import { consoleLogger } from '../observability/logger.js';
import { newRootId } from '../messages/ids.js';
import { checkObjectiveSize } from '../messages/input-limits.js';
import { objectiveFileSchema, rootObjectiveSchema, type ObjectiveFile, type RootObjective } from '../model/objective.js';
import { readStoredRecord } from '../redis/stored-record.js';
import { prepareRerun, type RerunRequest } from '../rerun/prepare-rerun.js';
import type { RunExport } from '../rerun/run-export.js';
import { exportRun, exportSource, linkRerun, readReruns, readRerunSource, rerunTtlMs, writeRerunRecords } from './rerun-records.js';
import type { RuntimeOptions } from '../config/options.js';
import { QUEUE_OF } from '../messages/queues.js';
import { ResultWaits } from './result-waits.js';
import { asRootOutcome } from './root-outcome.js';
import { listWorkers, type WorkerBeat } from '../workers/heartbeat.js';
import { unservedTiers, waitingTiers } from '../workers/unserved.js';
import type { RunListOptions, RunPage, RunSummary } from './run-list.js';
import { findRuns } from './run-find.js';
import { indexRoot, unindexRoot } from '../run-index/run-index.js';
import { cellOfMessage, cellPrefixes, inCell } from '../cells/cells.js';
import { readRunTree } from '../audit/run-tree.js';
import type { RunNode } from '../audit/run-tree-merge.js';
import { signRecord } from '../security/signing.js';
import { signerOf } from '../security/signing-keys.js';
import { answerQuestions, type AnswerReport } from '../questions/answer-questions.js';
import { unblockWork, type UnblockReport } from '../questions/unblock-work.js';
import type { RunStatus } from '../status/run-status.js';
import { rootIdOf } from '../messages/ids.js';
import { readPersonWait } from '../questions/run-questions.js';
import { bullQueue } from '../redis/bull-queue.js';
import { readHistoryReport, type HistoryReport } from '../learning/history-report.js';
import { cellsHistoryBeads } from './history-cells.js';

/** A W3C trace id, as the Monitor records it. */
const traceIdSchema = z.string().regex(/^[0-9a-f]{32}$/);

/** A run's trace, as its Monitor recorded it. */
export interface RunTrace {
  readonly traceId: string;
  /** Whether a collector took spans of it (marked by the Monitor after each export). */
  readonly exported: boolean;
}

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
  private readonly redis: RedisClient;
  /** Each cell of the deployment (cells/cells.ts): a run lives in the cell its root id names. */
  private readonly cells: readonly ClientCell[];
  /** Redis's clock, measured on first use: roots are timed on the clock their deadlines are enforced by. */
  private clock: Promise<RedisClock> | null = null;

  /** Set once Redis has answered: until then an outage is the business of {@link reachable}, which says it once. */
  private answered = false;
  private reached: Promise<void> | null = null;

  /**
   * A client whose Redis has answered ({@link reachable}): what a command uses, to fail in
   * seconds, saying why, when Redis cannot be used.
   *
   * @throws RedisUnreachableError (code `redis_unreachable`) naming the URL, password hidden, and the cause.
   */
  static async connect(runtime: RuntimeOptions): Promise<TierflowClient> {
    const client = new TierflowClient(runtime);
    try {
      await client.reachable();
    } catch (error) {
      await client.close();
      throw error;
    }
    return client;
  }

  /** A client that waits for Redis as long as it takes; {@link TierflowClient.connect} waits {@link RuntimeOptions.connectTimeoutMs} at most. */
  constructor(private readonly runtime: RuntimeOptions) {
    this.redis = connect(runtime, (message) => {
      if (this.answered || this.reached === null) process.stderr.write(`${message}\n`);
    });
    this.cells = Array.from({ length: runtime.cells }, (_, index) => {
      const cell = inCell(runtime, index);
      const monitor = bullQueue(QUEUE_OF.PROGRESS_MONITOR, this.redis, cell.prefix);
      // connect() already says once that Redis is down; without a listener BullMQ prints every retry's error whole.
      monitor.on('error', () => undefined);
      return { runtime: cell, monitor, waits: null };
    });
  }

  /**
   * Resolves once Redis answers a PING; rejects, at the first connection error or after
   * {@link RuntimeOptions.connectTimeoutMs}, with a RedisUnreachableError that names the URL
   * (password hidden) and why: refused, unknown host, TLS mismatch, authentication, timeout.
   */
  reachable(): Promise<void> {
    this.reached ??= awaitReachable(this.redis, { where: redisWhere(this.runtime), tls: isTlsUrl(this.runtime.redisUrl), timeoutMs: this.runtime.connectTimeoutMs }).then(() => {
      this.answered = true;
    });
    return this.reached;
  }

  private indexWarned = false;

  /** Says once that a root could not be indexed, and why. */
  private indexFailed(reason: unknown): void {
    if (this.indexWarned) return;
    this.indexWarned = true;
    consoleLogger('client').warn('a root was enqueued but not indexed: filters of `tierflow runs` will not find it (are the Redis users up to date? `tierflow acl apply`)', {
      error: reason instanceof Error ? reason.message : String(reason),
    });
  }

  /** The cell a message's run lives in. */
  private cellOf(messageId: string): ClientCell {
    return this.cells[cellOfMessage(messageId, this.runtime.cells)]!;
  }

  /**
   * Validates an objective (a parsed objective file) and enqueues it; returns the root id.
   *
   * @throws InputTooLargeError (code `input_too_large`) for more subtasks or bytes than the
   *   deployment's limits ({@link RuntimeOptions.limits}); ObjectiveFileError for an invalid one.
   */
  async enqueue(objective: unknown, options: { rootId?: string; rerunOf?: string } = {}): Promise<string> {
    const checked = this.checkedObjective(objective);
    const rootId = options.rootId ?? newRootId();
    // In a deployment that signs, the Monitor refuses a root record without a valid signature; a
    // client without its key learns so before it waits on Redis.
    const signer = signerOf(this.runtime.signing, CLIENT);
    const now = await this.now();
    const root: RootObjective = signRecord(
      { kind: 'root', root_id: rootId, submitted_at: new Date(now).toISOString(), objective: withoutEditorHint(checked), ...(options.rerunOf === undefined ? {} : { rerun_of: options.rerunOf }) },
      signer,
    );
    // With an SDK running (the CLI starts one), the run's trace starts here; without, at the Monitor.
    const span = rootSpan(rootId, QUEUE_OF.PROGRESS_MONITOR);
    const metadata = serialiseContext(trace.setSpan(context.active(), span));
    span.end();
    const cell = this.cellOf(rootId);
    const listening = cell.waits?.listening === true;
    // The run index's entry goes out beside the job (one connection, so no round trip of its own), and out again if the job does not.
    const keys = controlKeys(cell.runtime.prefix);
    const indexed = indexRoot(this.redis, keys, { rootId, objective: checked.objective, submittedAt: now, ttlMs: this.runtime.auditTtlMs });
    const added = cell.monitor.add('objective', root, { ...jobOptions(rootId, checked.priority ?? 2, this.runtime, now), ...(metadata ? { telemetry: { metadata } } : {}) });
    const [index, job] = await Promise.allSettled([indexed, added]);
    if (job.status === 'rejected') {
      await unindexRoot(this.redis, keys, rootId).catch(() => undefined);
      throw job.reason;
    }
    // The run is under way all the same: only `tierflow runs` filters miss it (a Redis user without the index's keys, say).
    if (index.status === 'rejected') this.indexFailed(index.reason);
    if (listening) cell.waits?.announce(rootId);
    return rootId;
  }

  /** The objective if it passes the deployment's limits and the schema. */
  private checkedObjective(objective: unknown): ObjectiveFile {
    checkObjectiveSize(objective, this.runtime.limits);
    const parsed = validateWith(objectiveFileSchema, objective);
    if (!parsed.ok) throw new ObjectiveFileError(`invalid objective: ${parsed.errors.map(formatValidationError).join('; ')}`);
    return parsed.value;
  }

  /**
   * Reruns a run (docs/operations.md#rerun-fork-and-replay): `of` is the original's root id, read
   * with this client's connection, or an exported run. Writes the rerun's records in its new
   * root's cell, then submits the root linked to the original (`rerun_of`), then links the
   * original to it (in the original's cell, unless it came from a file). Returns the new root id
   * and what the caller should know.
   *
   * @throws TierflowError: `root_not_found` for an original that is not retained; `invalid_argument`
   *   for an edit that is not one, a `from` that is no node of it, or a fork missing an outcome to
   *   reuse; `invalid_objective` or `input_too_large` for edits that leave the objective unfit.
   */
  async rerun(of: string | RunExport, request: RerunRequest = {}): Promise<{ readonly rootId: string; readonly notes: readonly string[] }> {
    const source = typeof of === 'string' ? await readRerunSource(this.redis, this.cellOf(of).runtime.prefix, of, this.runtime.signing) : exportSource(of);
    const prepared = prepareRerun(source, request);
    this.checkedObjective(prepared.objective);
    const rootId = newRootId();
    const ttlMs = rerunTtlMs(this.runtime);
    await writeRerunRecords(this.redis, this.cellOf(rootId).runtime.prefix, rootId, prepared, ttlMs);
    await this.enqueue(prepared.objective, { rootId, rerunOf: source.rootId });
    if (typeof of === 'string') await linkRerun(this.redis, this.cellOf(of).runtime.prefix, of, rootId, ttlMs);
    return { rootId, notes: prepared.notes };
  }

  /** A run in the exported format (`tierflow runs export`): its root record, its recording and its nodes' outcomes. @throws TierflowError (code `root_not_found`) when its root is not retained. */
  async exportRun(rootId: string): Promise<RunExport> {
    return exportRun(this.redis, this.cellOf(rootId).runtime.prefix, rootId, this.runtime.signing, await this.now());
  }

  /** What links a run to others: the run it reruns (from its root record; null when none, or past retention) and the runs that rerun it. */
  async rerunLinks(rootId: string): Promise<{ readonly rerun_of: string | null; readonly reruns: readonly string[] }> {
    const { runtime, monitor } = this.cellOf(rootId);
    const [data, reruns] = await Promise.all([this.redis.hget(monitor.toKey(rootId), 'data').catch(() => null), readReruns(this.redis, runtime.prefix, rootId)]);
    const root = data === null ? null : readStoredRecord(data, rootObjectiveSchema, { what: 'a root record' });
    return { rerun_of: root?.ok ? (root.value.rerun_of ?? null) : null, reruns };
  }

  /**
   * The root's final outcome while it is retained, or null if it has not finished (or is unknown,
   * or what it holds is not an outcome of this very run, signed by the Monitor when the deployment signs).
   */
  async result(rootId: string): Promise<OutcomeMessage | null> {
    const { monitor } = this.cellOf(rootId);
    // Its state first: a job read just before it completed has no return value, yet is completed when its state is asked next.
    if ((await monitor.getJobState(rootId)) !== 'completed') return null;
    const job = await monitor.getJob(rootId);
    return job ? asRootOutcome(job.returnvalue, rootId, this.runtime.signing) : null;
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
    const cell = this.cellOf(rootId);
    const { monitor, runtime } = cell;
    cell.waits ??= new ResultWaits({
      redis: this.redis,
      listener: connect(runtime),
      eventsKey: monitor.toKey('events'),
      jobKey: (id) => monitor.toKey(id),
      signing: runtime.signing,
      log: consoleLogger('client'),
      personWait: (id) => readPersonWait(this.redis, runtime.prefix, id, runtime.signing),
    });
    return cell.waits.wait(rootId, options.timeoutMs);
  }

  /**
   * Cancels a message's work (a root, or any delegation in a run): it answers `cancelled` with the
   * partial results it has, and with `cascade` (the default) so does every descendant.
   * Cancelling finished work does nothing and says so.
   */
  async cancel(messageId: string, options: { reason?: string; cascade?: boolean } = {}): Promise<CancelReport> {
    const { prefix } = this.cellOf(messageId).runtime;
    const finder = new JobFinder(this.redis, prefix);
    try {
      return await cancelMessage(this.redis, finder, prefix, messageId, {
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

  /** The dead letters of this deployment (of every cell): rejected jobs with their reasons. */
  deadLetters(): DeadLetters {
    return new DeadLetters(this.redis, cellPrefixes(this.runtime));
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
    return (await this.runTrace(rootId))?.traceId ?? null;
  }

  /**
   * The root's trace id, and whether its Monitor's exporter has sent spans of it to a collector
   * (only then does a link to it lead anywhere). Null when the Monitor recorded no trace.
   */
  async runTrace(rootId: string): Promise<RunTrace | null> {
    const keys = controlKeys(this.cellOf(rootId).runtime.prefix);
    const [recorded, exported] = await Promise.all([this.redis.get(keys.trace(rootId)), this.redis.get(keys.traceExported(rootId))]);
    const traceId = traceIdSchema.safeParse(recorded);
    if (!traceId.success) return null;
    return { traceId: traceId.data, exported: exported === traceId.data };
  }

  /**
   * The run's tree as it stands: every delegation on its audit trail or in the queues, with its
   * status and where that came from. Null for an unknown root, or one whose jobs and audit trail
   * are both past retention.
   */
  async tree(rootId: string): Promise<RunNode | null> {
    return readRunTree(this.redis, this.cellOf(rootId).runtime.prefix, rootId, this.runtime.signing);
  }

  /** The most recent runs (of every cell), latest first: running, waiting, and finished ones within retention, that pass the filter. */
  async runs(options: RunListOptions = {}): Promise<RunSummary[]> {
    return (await this.findRuns(options)).runs;
  }

  /**
   * A page of runs (of every cell), latest first, that pass the filter (docs/operations.md#finding-runs),
   * and the cursor of the next page.
   *
   * @throws TierflowError (code `invalid_argument`) for a cursor no listing gave.
   */
  async findRuns(options: RunListOptions = {}): Promise<RunPage> {
    const waitingForAnswers = async (prefix: string, ids: readonly string[]): Promise<ReadonlyMap<string, RunStatus>> => {
      if (ids.length === 0) return new Map();
      const keys = controlKeys(prefix);
      const [asking, blocked] = await Promise.all([this.redis.mget(...ids.map((id) => keys.questions(id))), this.redis.mget(...ids.map((id) => keys.blocked(id)))]);
      const waits = new Map<string, RunStatus>();
      ids.forEach((id, index) => {
        if (asking[index] !== null) waits.set(id, 'input_required');
        else if (blocked[index] !== null) waits.set(id, 'blocked');
      });
      return waits;
    };
    return findRuns(this.cells, options, { redis: this.redis, now: await this.now(), waitingForAnswers });
  }

  /**
   * Answers a run that waits for a person (status `input_required`): the question `to` (its id,
   * as `tierflow status` lists them), or every open one with the same text. Once none is left
   * open the run goes on: the work that asked is sent again with the answers, in the same run,
   * under the same root id and trace.
   *
   * @throws TierflowError with code `invalid_answer`, `not_waiting`, `unknown_question` or
   *   `already_answered` (see answerQuestions).
   */
  async answer(rootId: string, text: string, options: { to?: string } = {}): Promise<AnswerReport & { readonly resumed: boolean }> {
    const cell = this.cellOf(rootId);
    const report = await answerQuestions(this.redis, cell.runtime.prefix, rootId, text, {
      ...(options.to === undefined ? {} : { to: options.to }),
      now: await this.now(),
      signer: signerOf(this.runtime.signing, CLIENT),
      signing: this.runtime.signing,
      ttlMs: inFlightTtlMs(this.runtime),
    });
    if (report.open > 0) return { ...report, resumed: false };
    try {
      await (await cell.monitor.getJob(rootId))?.promote();
    } catch {
      // Not waiting in the delayed set this moment (its pass is still parking it): it looks for answers once parked.
    }
    return { ...report, resumed: true };
  }

  /**
   * Unblocks a run that waits on blocked work (status `blocked`, docs/protocol.md#blocked-work):
   * the blockers reported at or below `node` (a node id, as `tierflow status` shows them), or every
   * one still on. `id` is the run's root id, or a node's id (its run is the one it belongs to, and
   * it stands for `node`). Once none is left on the run goes on: its round is sent again, each
   * delegation carrying the notes in `task_data.unblocked`.
   *
   * @throws TierflowError with code `not_blocked`, `unknown_blocker` or `invalid_argument` (see unblockWork).
   */
  async unblock(id: string, options: { node?: string; note?: string } = {}): Promise<UnblockReport & { readonly rootId: string; readonly resumed: boolean }> {
    const rootId = rootIdOf(id);
    const node = options.node ?? (id === rootId ? undefined : id);
    const cell = this.cellOf(rootId);
    const report = await unblockWork(this.redis, cell.runtime.prefix, rootId, {
      ...(node === undefined ? {} : { node }),
      ...(options.note === undefined ? {} : { note: options.note }),
      now: await this.now(),
      signer: signerOf(this.runtime.signing, CLIENT),
      signing: this.runtime.signing,
      ttlMs: inFlightTtlMs(this.runtime),
    });
    if (report.open > 0) return { ...report, rootId, resumed: false };
    try {
      await (await cell.monitor.getJob(rootId))?.promote();
    } catch {
      // Not in the delayed set this moment (its pass is still parking it): it looks for unblocks once parked.
    }
    return { ...report, rootId, resumed: true };
  }

  /**
   * What the Monitor has learned of each specialist, per task type (or of one task type), decayed
   * to now on the deployment's clock: success, calibration, latency, tokens, cost, surprises, the
   * routing figures and the bottlenecks, over every cell (docs/operations.md#specialists-and-their-history).
   * Unreadable history counts as none (warned), never an error.
   */
  async historyReport(options: { taskType?: string } = {}): Promise<HistoryReport> {
    // Read only: Beads wants a tier for its writes, and this handle makes none.
    const beads = cellsHistoryBeads(this.cells.map((cell) => new BeadsStore(this.redis, { tier: 'PROGRESS_MONITOR', prefix: cell.runtime.prefix })));
    return readHistoryReport(beads, { ...options, now: await this.now(), log: consoleLogger('client') });
  }

  /** The deployment's live worker processes (of `tiers`, all when left out), from their heartbeats (of every cell), sorted by tier, host and pid. */
  async workers(tiers?: readonly TierSlug[]): Promise<WorkerBeat[]> {
    return listWorkers(this.redis, this.runtime, tiers);
  }

  /**
   * The tiers the run waits on that no live worker serves (from the heartbeats): a root no
   * Monitor takes because none is running, say. Empty when nothing of it waits for a worker.
   */
  async unservedTiers(tree: RunNode): Promise<TierName[]> {
    const waiting = waitingTiers(tree);
    if (waiting.length === 0) return [];
    return unservedTiers(waiting, await this.workers(waiting.map((tier) => TIER_SLUGS[tier])));
  }

  async close(): Promise<void> {
    for (const cell of this.cells) cell.waits?.close();
    void this.clock?.then(
      (clock) => clock.stop(),
      () => undefined,
    );
    await Promise.all(this.cells.map(({ monitor }) => monitor.close()));
    this.redis.disconnect();
  }
}

/** A cell as the client uses it: its options, its Monitor queue, and the waits for its roots (made by the first). */
interface ClientCell {
  readonly runtime: RuntimeOptions;
  readonly monitor: Queue;
  waits: ResultWaits | null;
}

/** The objective without `$schema`: an editor's hint, not part of the run (and a Monitor of an older version would refuse it). */
function withoutEditorHint(objective: ObjectiveFile): ObjectiveFile {
  const copy = { ...objective };
  delete copy.$schema;
  return copy;
}
