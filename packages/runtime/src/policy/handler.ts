import type { Context } from '@opentelemetry/api';
import type { Beads } from '@tierflow/beads';
import type { UsageMeter } from './usage-meter.js';
import type { ModelCalls } from './model-calls.js';
import type { ProgressUpdate } from './progress-update.js';
import type {
  AggregationStrategy,
  Budget,
  DelegationMessage,
  DelegationPayload,
  DelegationPayloadInput,
  JsonObject,
  KnownFields,
  OutcomeMessage,
  OutcomePayloadInput,
  ResolvedErrorPolicy,
  TierName,
} from '@tierflow/protocol';

/** What a tier is asked to do: a delegation, or for the Monitor the root objective made into one. */
export interface Assignment {
  /** The delegation's message id; for the Monitor, the root id. */
  readonly id: string;
  readonly rootId: string;
  readonly payload: DelegationPayload;
  /** The delegation as received; null for the root objective, which reaches the Monitor from outside the tiers. */
  readonly message: DelegationMessage | null;
  /** The root objective's own budget, if it set one (root assignments only). */
  readonly budget?: Budget;
}

export interface TierLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** The small world a tier's policy sees: no Redis, no BullMQ. */
export interface TierContext {
  readonly tier: TierName;
  readonly assignment: Assignment;
  /** 1 for the first try, 2 for the first retry, … */
  readonly attempt: number;
  /**
   * Whether this delivery may repeat an earlier one that got as far as running: a retry, or a
   * job taken back from a worker that died. Work that records its results can look for them
   * only then.
   */
  readonly redelivered: boolean;
  readonly maxAttempts: number;
  /** Fires when the work is cancelled or runs out of time; stop promptly when it does. */
  readonly signal: AbortSignal;
  /**
   * When this pass must have answered (ms since the epoch, on {@link now}'s clock): the delegation's
   * deadline less the margin its answer needs to travel; null when it has no timeout. `signal` fires then.
   */
  readonly answerBy: number | null;
  /**
   * How long this job has waited for a person's answers so far (docs/protocol.md#clarification):
   * time that is not its work, which a policy timing the work leaves out. 0 for most jobs.
   */
  readonly waitedMs: number;
  /**
   * What to do when this job's work goes wrong (docs/protocol.md#error-policies): its delegation's
   * `error_policy` over the deployment's defaults. The runtime applies it; a handler that can
   * repair its own work (`on_format_mismatch: adapt`) reads it.
   */
  readonly errorPolicy: ResolvedErrorPolicy;
  /** Beads, with this tier's write permissions. */
  readonly beads: Beads;
  readonly log: TierLogger;
  /**
   * The OpenTelemetry context of this pass's span. A policy that traces its own work passes it
   * as the parent, `tracer.startSpan('call model', {}, ctx.traceContext)`, and its spans nest
   * under the hop whether or not the process carries context across awaits.
   */
  readonly traceContext: Context;
  /** Milliseconds since the epoch; the one clock policies use, so tests can pin it. */
  now(): number;
  /**
   * The run's usage meter: `reserve(estimate)` before each model call (it throws `budget_exceeded`
   * once the run's budget is spent, or the call's reservation would pass it), and `settle(usage)`
   * the reservation it gives after the call. Counted in Redis across every process.
   */
  readonly usage: UsageMeter;
  /**
   * This node's model calls (docs/operations.md#recording): work that calls a model asks
   * `replay(request)` first (a rerun may answer it from a recording) and `record(call)`s each
   * call once it ends, so `tierflow inspect` shows its prompt and answer.
   */
  readonly calls: ModelCalls;
  /**
   * Reports how far along the work is, `{ percent, note }`: kept for the run (`tierflow status`),
   * added to the trace and the audit trail. At most one a second is kept; it never throws or waits.
   */
  progress(update: ProgressUpdate): void;
}

/** An outcome as a policy writes it; the runtime adds the envelope and `execution_time_ms` when absent. */
export type OutcomeDraft = Omit<KnownFields<OutcomePayloadInput>, 'execution_time_ms'> & { readonly execution_time_ms?: number };

/** A child delegation as a policy writes it; the runtime adds the envelope and id. */
export type DelegationDraft = KnownFields<DelegationPayloadInput>;

/** A policy's answer: report an outcome, or delegate children and be resumed when they settle. */
export type Step =
  | { readonly kind: 'outcome'; readonly outcome: OutcomeDraft }
  | {
      readonly kind: 'delegate';
      readonly children: readonly DelegationDraft[];
      readonly strategy: AggregationStrategy;
      /** JSON the policy wants back when it resumes (it may resume in another process). */
      readonly memo?: JsonObject;
      /** Hold the children back this long before they may start (a back-off after `throttled`). */
      readonly delayMs?: number;
      /** Choices the policy made for this round, put on the audit trail with its delegations (docs/operations.md#the-audit-trail). */
      readonly decisions?: readonly PolicyDecision[];
    }
  /**
   * Nothing can be done before `until` (ms since the epoch), such as a model with no room: the job
   * leaves its worker for BullMQ's delayed set and starts afresh then, its deadline unchanged. Only
   * a job that has delegated nothing may wait; a model call that parks its pass returns this for
   * the policy (see ModelParking).
   */
  | { readonly kind: 'wait'; readonly until: number; readonly reason: string };

/**
 * A choice a policy made and wants on record, such as the specialist it routed a child to and
 * why: an audit entry of kind `decision`, about one child of the round or about the round itself.
 */
export interface PolicyDecision {
  /** The child it is about, by its place in the round's `children`; null: the round as a whole. */
  readonly child: number | null;
  /** A line for people (`tierflow audit`): what was chosen and why. */
  readonly detail: string;
  /** The decision itself, as JSON, kept with the entry for tools to read. */
  readonly data: JsonObject;
}

/** A step that delegates: the round a policy sends. */
export type DelegateStep = Extract<Step, { kind: 'delegate' }>;

/** One settled child: what was asked, and the outcome that came back (synthesised as failed if the job failed for good). */
export interface SettledChild {
  readonly id: string;
  readonly index: number;
  readonly request: DelegationPayload;
  readonly outcome: OutcomeMessage;
}

/** A round of children, settled, handed back to the policy. */
export interface SettledRound {
  /** 0 for the first delegation, then 1, 2, … for each revision or re-route. */
  readonly round: number;
  readonly strategy: AggregationStrategy;
  /** In completion order, first finished first. */
  readonly children: readonly SettledChild[];
  readonly memo: JsonObject;
}

/** A tier's policy. */
export interface TierHandler {
  readonly tier: TierName;
  /** A new assignment: answer it, or delegate. */
  start(context: TierContext): Promise<Step>;
  /** Children settled: answer, or delegate again (a revision or a re-route). */
  resume?(context: TierContext, round: SettledRound): Promise<Step>;
  /**
   * The answer this policy recorded for the assignment before its worker died, if any (the
   * Fleet's completion record). Read when a job's workers died too often to run it again
   * (poison), so work that had finished still answers as it finished, not as `worker_crashed`.
   */
  recorded?(context: TierContext): Promise<OutcomeDraft | null>;
}
