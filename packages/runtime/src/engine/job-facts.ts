import { type Budget, type CancellationMessage, ERROR_TYPES, type OutcomeMessage, tierAbove, tierBelow, type TierName, type TierSlug } from '@tierflow/protocol';
import type { Job } from 'bullmq';
import type { RedisClient } from '@tierflow/beads';
import { parseChildValues, processedKey } from '../redis/bullmq-keys.js';
import { roundKeyOf, type ControlKeys } from '../redis/keys.js';
import { markStop, type StopReason } from '../cancellation/control-listener.js';
import { readCancelMark, readRace, readTimeoutRecord } from '../cancellation/control-records.js';
import { readStoredRecord, type RecordRead } from '../redis/stored-record.js';
import { rootIdOf } from '../messages/ids.js';
import { rerunSpecSchema, type RerunSpec } from '../rerun/rerun-spec.js';
import { CorruptRecordError } from '../redis/corrupt-record.js';
import { checkBudgetStop } from '../budget/budget-stops.js';
import type { DedupCache } from './dedup.js';
import type { TierLogger } from '../policy/handler.js';
import { cancellersOf, partyOf, type Party } from '../security/party.js';
import type { SigningConfig } from '../security/signing-keys.js';
import type { StepState, StepStore } from '../steps/step-store.js';

/** What a job knows of itself when a pass opens: its cached answer, whether it is stopped, its step. */
export interface JobFacts {
  readonly cached: OutcomeMessage | null;
  readonly stop: StopReason | null;
  readonly state: StepState | null;
  /** The step state could not be read: the pass answers `failed` (corrupt_record) rather than guess. */
  readonly corrupt: CorruptRecordError | null;
  /** A parent's children's answers so far (BullMQ's processed values), read with the rest; null at the Fleet and on a first start. */
  readonly childValues: Record<string, unknown> | null;
  /**
   * The race record of this job's round, as its parent wrote it before adding the round's
   * children, when the parent races them (first_success); null otherwise.
   */
  readonly race: string | null;
  /** The run's rerun spec when it reruns another (rerun/rerun-spec.ts); null for most runs. */
  readonly rerun: RerunSpec | null;
  /** The attempt in which the job last left its worker to wait for room (defer.ts), as written; null: never. */
  readonly deferred: string | null;
}

export interface JobFactsDeps {
  readonly redis: RedisClient;
  readonly keys: ControlKeys;
  /** The tier whose jobs these are. */
  readonly tier: TierName;
  readonly dedup: DedupCache;
  readonly steps: StepStore;
  readonly signing: SigningConfig | null;
  readonly log: TierLogger;
  /**
   * At the root: the run's budget, from its job (the objective's over the deployment's default).
   * The root's jobs also read their run's budget hash: a run over budget stops at the root even
   * when its work finished before the Monitor's cancellation reached it (see budget-stops.ts).
   */
  readonly budgetOf?: (job: Job) => Budget | null;
}

/**
 * Reads what the runtime keeps beside a tier's jobs in Redis: every value is parsed before use,
 * and one that cannot be used is logged with its key and handled: a control record of the wrong
 * shape, for another message, or by a party that may not write it is ignored, a cached answer
 * that is not an outcome is ignored, and a corrupt step state is reported so the job answers
 * `failed`. Control records are kept per writer; a job reads those of every party that may
 * write one for it.
 */
export class JobFactsReader {
  private readonly own: TierSlug;
  private readonly cancellers: readonly Party[];
  /** Who may record this tier's jobs as timed out: the parent tier's watchdog, and the tier's own (for its answer-by time). */
  private readonly timers: readonly TierSlug[];
  /** The parent tier, which writes a first_success round's race record; null at the root. */
  private readonly parent: TierSlug | null;
  /** Whether jobs of this tier keep step state: only a tier that delegates writes any (the Fleet's never do). */
  readonly keepsSteps: boolean;

  constructor(private readonly deps: JobFactsDeps) {
    this.own = partyOf(deps.tier);
    this.cancellers = cancellersOf(deps.tier);
    const above = tierAbove(deps.tier);
    this.parent = above ? partyOf(above) : null;
    this.timers = [this.own, ...(this.parent ? [this.parent] : [])];
    this.keepsSteps = tierBelow(deps.tier) !== null;
  }

  /**
   * One round trip opens a pass: the cached answer, the step state (at a tier that delegates), the
   * cancellation marks, the watchdogs' timeout records, the round's race record and, with
   * `children` (a parent past its first start, which may have some), its children's answers so far.
   */
  async read(job: Job, children: boolean): Promise<JobFacts> {
    const { redis, keys, dedup, steps } = this.deps;
    const jobId = job.id!;
    const cancelKeys = this.markKeys(jobId);
    const timeoutKeys = this.timers.map((writer) => keys.timeout(writer, jobId));
    const round = this.parent ? roundKeyOf(jobId) : null;
    const raceKeys = this.parent && round ? [keys.race(this.parent, round)] : [];
    const stepKeys = this.keepsSteps ? [steps.key(jobId)] : [];
    const rerunKey = keys.rerun(rootIdOf(jobId)).spec;
    // Sent together, these go in one write (see coalesceWrites) and come back in one round trip.
    const [texts, values, budget] = await Promise.all([
      redis.mget(dedup.key(jobId), ...stepKeys, ...cancelKeys, ...timeoutKeys, ...raceKeys, keys.deferred(this.own, jobId), rerunKey),
      children ? redis.hgetall(processedKey(job)) : null,
      this.deps.budgetOf ? redis.hgetall(keys.budget(jobId)) : null,
    ]);
    const cached = texts[0] ?? null;
    const step = stepKeys.length > 0 ? (texts[1] ?? null) : null;
    const marksAt = 1 + stepKeys.length;
    const marks = texts.slice(marksAt, marksAt + cancelKeys.length);
    const timeouts = texts.slice(marksAt + cancelKeys.length, marksAt + cancelKeys.length + timeoutKeys.length);
    const race = raceKeys.length > 0 ? (texts[marksAt + cancelKeys.length + timeoutKeys.length] ?? null) : null;
    const rerun = this.rerunSpec(texts[texts.length - 1] ?? null, rerunKey);
    const deferred = texts[texts.length - 2] ?? null;
    const mark = await this.firstMark(jobId, marks);
    const timedOut = timeouts.some((text, index) => this.timeoutRecord(text ?? null, jobId, this.timers[index]!) !== null);
    const stop: StopReason | null = mark ? markStop(mark) : timedOut ? { status: 'timeout', reason: 'ran out of time' } : budget?.exceeded !== undefined ? this.budgetStop(job, budget) : null;
    const state = step ? steps.read(step, jobId) : null;
    const corrupt = state && !state.ok ? new CorruptRecordError(steps.key(jobId), state.reason) : null;
    if (corrupt) this.deps.log.warn('a step state cannot be read: the job answers failed', { key: corrupt.key, reason: corrupt.message });
    return {
      cached: this.cachedAnswer(cached, jobId),
      stop,
      state: state?.ok ? state.value : null,
      corrupt,
      childValues: values && parseChildValues(values),
      race,
      rerun,
      deferred,
    };
  }

  /** A rerun spec that cannot be read is logged and ignored: the job runs as in any run. */
  private rerunSpec(text: string | null, key: string): RerunSpec | null {
    if (text === null) return null;
    const read = readStoredRecord(text, rerunSpecSchema, { what: 'a rerun spec' });
    if (read.ok) return read.value;
    this.deps.log.warn('ignored a rerun spec that cannot be read', { key, reason: read.reason });
    return null;
  }

  /** A run marked over budget stops at the root only if its count bears it out: any tier can write the mark. */
  private budgetStop(job: Job, record: Record<string, string>): StopReason | null {
    const check = checkBudgetStop(record, this.deps.budgetOf?.(job) ?? null);
    if (check.holds) return { status: 'cancelled', reason: check.reason, errorType: ERROR_TYPES.budgetExceeded };
    this.deps.log.warn('ignored a budget mark the run’s count does not bear out', { key: this.deps.keys.budget(job.id!), reason: check.reason });
    return null;
  }

  /** A parent's children's answers so far; one that is not JSON stays text, read as an invalid outcome. */
  async childValues(job: Job): Promise<Record<string, unknown>> {
    return parseChildValues(await this.deps.redis.hgetall(processedKey(job)));
  }

  /** The ids among these children that this tier's watchdog has recorded as timed out. */
  async timedOut(ids: readonly string[]): Promise<ReadonlySet<string>> {
    if (ids.length === 0) return new Set();
    const records = await this.deps.redis.mget(...ids.map((id) => this.deps.keys.timeout(this.own, id)));
    return new Set(ids.filter((id, index) => this.timeoutRecord(records[index] ?? null, id, this.own) !== null));
  }

  /** The cancellation mark that holds for each of these (this tier's jobs) that has one, by id; one round trip for all. */
  async marks(ids: readonly string[]): Promise<ReadonlyMap<string, CancellationMessage>> {
    const held = new Map<string, CancellationMessage>();
    if (ids.length === 0) return held;
    const width = this.cancellers.length;
    const texts = await this.deps.redis.mget(...ids.flatMap((id) => this.markKeys(id)));
    const marks = await Promise.all(ids.map((id, index) => this.firstMark(id, texts.slice(index * width, (index + 1) * width))));
    marks.forEach((mark, index) => mark && held.set(ids[index]!, mark));
    return held;
  }

  /** Where the cancellation marks that may stop job `jobId` are, one per party that may write one. */
  markKeys(jobId: string): string[] {
    return this.cancellers.map((writer) => this.deps.keys.cancel(writer, jobId));
  }

  /** Whether the marks read at {@link markKeys} (in its order) stop job `jobId`. */
  async stoppedBy(jobId: string, texts: readonly unknown[]): Promise<boolean> {
    const marks = texts.map((text) => (typeof text === 'string' ? text : null));
    return (await this.firstMark(jobId, marks)) !== null;
  }

  /** The first mark, in the order of {@link cancellersOf}, that holds for `jobId`. */
  private async firstMark(jobId: string, texts: readonly (string | null | undefined)[]): Promise<CancellationMessage | null> {
    for (const [index, text] of texts.entries()) {
      if (text === null || text === undefined) continue;
      const writer = this.cancellers[index]!;
      const key = this.deps.keys.cancel(writer, jobId);
      const mark = this.usable(readCancelMark(text, jobId, this.deps.signing, writer), key, 'cancellation mark');
      if (!mark) continue;
      if (writer !== this.own) return mark;
      const race = await this.lostRace(jobId, mark);
      if (race === null) return mark;
      this.deps.log.warn('ignored a cancellation mark by a sibling that did not win its first_success round', { key, reason: race });
    }
    return null;
  }

  /**
   * A mark by a job's own tier holds only from the winner of its first_success round: the round's
   * parent listed both, and the winner's record names the one who wrote the mark. Null when it
   * holds, else why not.
   */
  private async lostRace(jobId: string, mark: CancellationMessage): Promise<string | null> {
    const winner = mark.payload.winner;
    const round = roundKeyOf(jobId);
    const parent = tierAbove(this.deps.tier);
    if (typeof winner !== 'string' || round === null || !parent || roundKeyOf(winner) !== round || winner === jobId) {
      return 'it names no winner of this round';
    }
    const { keys, redis } = this.deps;
    const [won, members] = await redis.mget(keys.raceWinner(this.own, round), keys.race(partyOf(parent), round));
    if (won !== winner) return `the round's winner is ${won ?? 'no one yet'}, not ${winner}`;
    const race = members ? readRace(members, this.deps.signing, partyOf(parent)) : null;
    return race?.includes(jobId) && race.includes(winner) ? null : `the round's members (by its parent) do not list both ${winner} and ${jobId}`;
  }

  private timeoutRecord(text: string | null, jobId: string, writer: TierSlug) {
    return text === null ? null : this.usable(readTimeoutRecord(text, jobId, this.deps.signing, writer), this.deps.keys.timeout(writer, jobId), 'timeout record');
  }

  /** A de-duplication record that is not a valid outcome is ignored: the work runs again rather than answering garbage. */
  private cachedAnswer(text: string | null, jobId: string): OutcomeMessage | null {
    if (text === null) return null;
    const outcome = this.deps.dedup.parse(text);
    if (!outcome) this.deps.log.warn('ignored a de-duplication record that is not an outcome', { key: this.deps.dedup.key(jobId) });
    return outcome;
  }

  private usable<T>(read: RecordRead<T>, key: string, what: string): T | null {
    if (read.ok) return read.value;
    this.deps.log.warn(`ignored a ${what}`, { key, reason: read.reason });
    return null;
  }
}
