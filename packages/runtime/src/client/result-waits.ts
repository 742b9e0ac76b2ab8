import type { OutcomeMessage } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { EventStreamReader } from './event-stream-reader.js';
import type { TierLogger } from '../policy/handler.js';
import type { MonitorEvent } from './monitor-events.js';
import { readRootOutcome } from './root-outcome.js';
import { ROOT_DATA_FIELD, ROOT_FIELDS, rootRecordOf, type RootRecord } from './root-record.js';
import type { SigningConfig } from '../security/signing-keys.js';
import { waitError, type RootWaitError } from './wait-errors.js';
import { DEFAULT_WAIT_LIMIT_MS, defaultWaitLimitMs, givenWaitLimitMs, RECONCILE_INTERVAL_MS } from './wait-limit.js';
import type { PersonWait } from '../questions/run-questions.js';

export interface ResultWaitsOptions {
  /** For lookups (shared with the rest of the client). */
  readonly redis: RedisClient;
  /** A connection of its own for the blocking reads of the event stream; closed with this. */
  readonly listener: RedisClient;
  /** The Monitor queue's event stream. */
  readonly eventsKey: string;
  /** The key of a root's job hash. */
  readonly jobKey: (rootId: string) => string;
  readonly signing: SigningConfig | null;
  readonly log: TierLogger;
  readonly reconcileIntervalMs?: number;
  /**
   * Whether a root waits for a person's answers just now, and when the last answer came: a wait
   * with the default limit is not over while the run waits, nor before the run has had its whole
   * timeout again since the last answer (the run's deadline counts neither).
   */
  readonly personWait?: (rootId: string) => Promise<PersonWait>;
}

interface Waiter {
  readonly resolve: (outcome: OutcomeMessage) => void;
  readonly reject: (error: RootWaitError) => void;
  readonly startedAt: number;
  /** False while the limit is the fallback, until the objective's timeout_ms has been read. */
  limitKnown: boolean;
  /** The caller set the limit: it holds, whatever the run waits for. */
  readonly given: boolean;
  /** The default limit (the objective's timeout and the grace), counted again from a person's last answer. */
  defaultMs: number;
  timer: NodeJS.Timeout | undefined;
}

interface RootWaiting {
  readonly waiters: Set<Waiter>;
  /** Seen to exist (or enqueued here), so that its absence means it vanished. */
  known: boolean;
  /**
   * The outcome a completed event carried, checked like the record's: taken only when the root's
   * record is gone by the time it is looked up (a deployment that keeps no finished jobs).
   */
  heard?: OutcomeMessage;
}

type Ending = { readonly outcome: OutcomeMessage } | { readonly error: RootWaitError };

/** Lookups per pipeline: one round trip each, bounded so a huge wait list does not make one huge reply. */
const LOOKUP_BATCH = 1_000;

/**
 * Every wait of one client for root outcomes. The Monitor queue's event stream, followed from its
 * end as it was when this started, says as soon as a root's end is written; the root's own job
 * record, looked up then, gives the answer. An event is only a wake-up: anyone who can write the
 * queue can write the stream, while the record is what BullMQ's completion of the root wrote. A
 * reconciliation every couple of seconds — and at once after the stream's connection comes back
 * — looks up all the roots still awaited in one round trip, so a root whose event was missed
 * (trimmed, lost while disconnected, malformed) still settles, and one that no longer exists is
 * reported. An outcome is taken only if it answers the root awaited (and, in a deployment that
 * signs, the Monitor signed it). Per waiter: one timer and a set entry.
 */
export class ResultWaits {
  private readonly roots = new Map<string, RootWaiting>();
  /**
   * Roots enqueued by this client after its listener took its place in the stream, whose end it
   * has not yet seen: that end cannot be missed but by a fault, which reconciliation covers, so a
   * wait for one with a limit of its own needs no lookup.
   */
  private readonly announced = new Set<string>();
  private readonly due = new Set<string>();
  private readonly warned = new Set<string>();
  private readonly started: Promise<void>;
  private readonly interval: NodeJS.Timeout;
  private reader: EventStreamReader | null = null;
  private flushing = false;
  private flushQueued = false;
  private closed = false;

  constructor(private readonly options: ResultWaitsOptions) {
    this.started = this.start();
    this.interval = setInterval(() => this.reconcileAll(), options.reconcileIntervalMs ?? RECONCILE_INTERVAL_MS).unref();
  }

  /** Whether the listener has taken its place in the stream: from now on no root's end goes unheard. */
  get listening(): boolean {
    return this.reader !== null;
  }

  /** Notes a root this client has just enqueued, while {@link listening}. */
  announce(rootId: string): void {
    this.announced.add(rootId);
  }

  /**
   * Resolves with the root's outcome; rejects with a {@link RootWaitError} after `timeoutMs`, or
   * by default after the objective's timeout_ms plus a grace (an hour without one), or as soon as
   * the root turns out to be gone.
   */
  wait(rootId: string, timeoutMs?: number): Promise<OutcomeMessage> {
    const given = timeoutMs === undefined ? undefined : givenWaitLimitMs(timeoutMs);
    if (this.closed) return Promise.reject(waitError.closed(rootId));
    return new Promise<OutcomeMessage>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, startedAt: Date.now(), limitKnown: given !== undefined, given: given !== undefined, defaultMs: DEFAULT_WAIT_LIMIT_MS, timer: undefined };
      this.arm(rootId, waiter, given ?? DEFAULT_WAIT_LIMIT_MS);
      const root = this.roots.get(rootId) ?? { waiters: new Set<Waiter>(), known: false };
      root.waiters.add(waiter);
      this.roots.set(rootId, root);
      // Listen first, then look: a root that ends in between is caught by one or the other.
      const announced = this.announced.has(rootId);
      if (announced) root.known = true;
      if (!announced || !waiter.limitKnown) void this.started.then(() => this.check(rootId));
    });
  }

  /** Rejects every wait still open (`client_closed`) and stops listening. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.interval);
    if (this.reader) this.reader.close();
    else this.options.listener.disconnect();
    for (const [rootId, root] of [...this.roots]) this.end(rootId, root, { error: waitError.closed(rootId) });
  }

  private async start(): Promise<void> {
    // Read from the stream's end as it is now: every event from here on is heard, even those
    // written before the listener's first read.
    let from = '$';
    try {
      const [last] = await this.options.redis.xrevrange(this.options.eventsKey, '+', '-', 'COUNT', 1);
      from = typeof last?.[0] === 'string' ? last[0] : '0-0';
    } catch (error) {
      this.warnOnce('start', `cannot read the end of ${this.options.eventsKey} (${(error as Error).message}); listening for new events only`);
    }
    if (this.closed) return;
    this.reader = new EventStreamReader(this.options.listener, this.options.eventsKey, from, {
      event: (event) => this.heard(event),
      gap: () => this.reconcileAll(),
      problem: (kind, message) => this.warnOnce(kind, message),
    });
  }

  private heard(event: MonitorEvent): void {
    if (event.kind === 'malformed') {
      this.warnOnce(event.problem, `ignored a malformed entry on ${this.options.eventsKey}: ${event.detail} (reported once per kind)`);
      return;
    }
    if (event.kind === 'other') return;
    this.announced.delete(event.rootId);
    const root = this.roots.get(event.rootId);
    if (!root) return;
    if (event.kind === 'completed') {
      const reading = readRootOutcome(event.returnvalue, event.rootId, this.options.signing);
      if ('outcome' in reading) root.heard = reading.outcome;
      else this.warnOnce('bad_returnvalue', `ignored a completed event for root ${event.rootId}: ${reading.refused}; the root's own record decides (reported once)`);
    }
    // Whatever the event says, the job's record says what happened.
    this.check(event.rootId);
  }

  /** Limits by timers of their own, so thousands of waits cost no polling. */
  private arm(rootId: string, waiter: Waiter, limitMs: number): void {
    clearTimeout(waiter.timer);
    const left = Math.max(0, waiter.startedAt + limitMs - Date.now());
    waiter.timer = setTimeout(() => void this.expire(rootId, waiter, limitMs), left);
  }

  /**
   * A wait's limit is up: it ends, unless the limit was the default and the run waits for a
   * person, whose time the run's deadline does not count either (then the limit grows by a
   * reconciliation interval, and is looked at again then), or the run was answered too recently
   * to have had its whole timeout since (then the limit runs from that answer).
   */
  private async expire(rootId: string, waiter: Waiter, limitMs: number): Promise<void> {
    const person = waiter.given ? null : await this.options.personWait?.(rootId).catch(() => null);
    const root = this.roots.get(rootId);
    if (!root?.waiters.has(waiter)) return;
    const sinceAnswer = person?.lastAnswerAt == null ? 0 : person.lastAnswerAt + waiter.defaultMs - waiter.startedAt;
    if (person?.waiting) this.arm(rootId, waiter, limitMs + (this.options.reconcileIntervalMs ?? RECONCILE_INTERVAL_MS));
    else if (sinceAnswer > limitMs) this.arm(rootId, waiter, sinceAnswer);
    else this.endOne(rootId, root, waiter, { error: waitError.timeout(rootId, limitMs) });
  }

  private reconcileAll(): void {
    if (this.closed || this.roots.size === 0) return;
    for (const rootId of this.roots.keys()) this.due.add(rootId);
    this.queueFlush();
  }

  private check(rootId: string): void {
    if (this.closed || !this.roots.has(rootId)) return;
    this.due.add(rootId);
    this.queueFlush();
  }

  /** Checks asked for in the same turn go out together. */
  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    // The running flush takes what was added meanwhile before it stops.
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.due.size > 0 && !this.closed) {
        const batch = [...this.due].slice(0, LOOKUP_BATCH);
        for (const rootId of batch) this.due.delete(rootId);
        await this.lookUp(batch.filter((rootId) => this.roots.has(rootId)));
      }
    } catch (error) {
      // What was taken is looked up again at the next reconciliation.
      if (!this.closed) this.warnOnce('lookup', `cannot look up the roots being waited on (${(error as Error).message}); trying again`);
    } finally {
      this.flushing = false;
    }
  }

  private async lookUp(rootIds: readonly string[]): Promise<void> {
    if (rootIds.length === 0) return;
    const withData = rootIds.map((rootId) => [...(this.roots.get(rootId)?.waiters ?? [])].some((waiter) => !waiter.limitKnown));
    const pipeline = this.options.redis.pipeline();
    rootIds.forEach((rootId, index) => pipeline.hmget(this.options.jobKey(rootId), ...ROOT_FIELDS, ...(withData[index] ? [ROOT_DATA_FIELD] : [])));
    // Every job added writes the stream; with it gone, so is everything the queue had.
    pipeline.exists(this.options.eventsKey);
    const answers = await pipeline.exec();
    const queueGone = answers?.[rootIds.length]?.[1] === 0;
    rootIds.forEach((rootId, index) => this.apply(rootId, rootRecordOf(answers?.[index], withData[index] === true), queueGone));
  }

  private apply(rootId: string, record: RootRecord, queueGone: boolean): void {
    const root = this.roots.get(rootId);
    if (!root || this.closed) return;
    switch (record.state) {
      case 'missing': {
        // Its end was heard, and the record already let go of (kept for no time): that end stands.
        if (root.heard) return this.settle(rootId, { outcome: root.heard });
        // Seen before, enqueued here, or its whole queue gone with it: it existed and vanished.
        const vanished = root.known || this.announced.has(rootId) || queueGone;
        return this.settle(rootId, { error: vanished ? waitError.vanished(rootId) : waitError.notFound(rootId) });
      }
      case 'unfinished':
        root.known = true;
        if (record.timeoutMs !== undefined) this.limitFrom(rootId, root, record.timeoutMs);
        return;
      case 'completed': {
        const reading = readRootOutcome(record.returnvalue, rootId, this.options.signing);
        return this.settle(rootId, 'outcome' in reading ? reading : { error: waitError.invalidOutcome(rootId, reading.refused) });
      }
      case 'failed':
        return this.settle(rootId, { error: waitError.failed(rootId, record.reason) });
      case 'unreadable':
        return this.settle(rootId, { error: waitError.unreadable(rootId, record.problem) });
      case 'unknown':
        this.warnOnce('lookup_answer', `cannot look up root ${rootId} (${record.problem}); trying again`);
        return;
    }
  }

  private limitFrom(rootId: string, root: RootWaiting, objectiveTimeoutMs: number | null): void {
    for (const waiter of root.waiters) {
      if (waiter.limitKnown) continue;
      waiter.limitKnown = true;
      waiter.defaultMs = defaultWaitLimitMs(objectiveTimeoutMs);
      this.arm(rootId, waiter, waiter.defaultMs);
    }
  }

  private settle(rootId: string, ending: Ending): void {
    this.announced.delete(rootId);
    const root = this.roots.get(rootId);
    if (root) this.end(rootId, root, ending);
  }

  private end(rootId: string, root: RootWaiting, ending: Ending): void {
    for (const waiter of [...root.waiters]) this.endOne(rootId, root, waiter, ending);
  }

  private endOne(rootId: string, root: RootWaiting, waiter: Waiter, ending: Ending): void {
    clearTimeout(waiter.timer);
    root.waiters.delete(waiter);
    if (root.waiters.size === 0 && this.roots.get(rootId) === root) {
      this.roots.delete(rootId);
      this.due.delete(rootId);
    }
    if ('outcome' in ending) waiter.resolve(ending.outcome);
    else waiter.reject(ending.error);
  }

  private warnOnce(kind: string, message: string): void {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    this.options.log.warn(message);
  }
}
