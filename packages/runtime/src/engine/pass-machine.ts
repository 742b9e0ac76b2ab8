import { checkBoundary, checkDelegation, targetParty, type Boundaries } from '@tierflow/core';
import { ERROR_TYPES, TIER_SLUGS, tierBelow, TierflowError, type Clarification, type OutcomeMessage, type TierName, type TimeoutPolicy, type UnblockNote } from '@tierflow/protocol';
import type { StopReason } from '../cancellation/control-listener.js';
import type { DelegateStep, OutcomeDraft, SettledChild, SettledRound, Step } from '../policy/handler.js';
import { failureDraft, isPermanent, stoppedDraft } from './failures.js';
import { crashedDraft } from './crash-guard.js';
import { subtasksBelow } from './usage-rollup.js';
import { answeredRound } from '../questions/questions.js';
import { unblockedRound } from '../questions/blocked.js';
import type { Awaiting } from '../questions/awaiting.js';
import { unansweredDraft } from './unanswered.js';
import type { StepState } from '../steps/step-store.js';

/**
 * One pass of a job (from the moment a worker takes it until it answers, parks or gives it back
 * for a retry) as a state machine. The phases and events are plain data and {@link transition} is
 * pure: what each phase does to the world lives in run-pass.ts, which feeds the result back here
 * as an event. docs/architecture.md walks through a job's path.
 *
 *   fresh ──decided──▶ delegating ──delegated──▶ parked
 *     │                    ├───────(children already done)──▶ collecting
 *     │                    └──refused (by a handoff interceptor)──▶ answering (failed)
 *     └──decided(outcome)──▶ answering ──answered──▶ answered
 *   collecting ──round_settled──▶ resuming ──decided──▶ delegating | answering
 *   collecting ──round_pending──▶ waiting ──parked──▶ parked       (children a crash lost are added again)
 *   any deciding phase ──stopped──▶ stopping ──round_settled──▶ answering (cancelled / timeout)
 *   any deciding phase ──failed──▶ retrying (transient, attempts left) | answering (failed)
 *   poisoned ──recalled──▶ answering (its policy's record of a finished run, else worker_crashed)
 *
 * A root whose round comes back asking a person (needs_clarification) waits for the answers
 * instead of answering (docs/protocol.md#clarification):
 *   resuming ──decided(needs_clarification)──▶ asking ──asked──▶ delayed
 *   (woken) awaiting ──answers_complete──▶ delegating (the round again, with the answers)
 *                    ──answers_pending──▶ delayed     ──answers_expired──▶ answering
 *
 * A root whose round comes back blocked on something outside the run waits likewise for it to be
 * unblocked, its deadline paused (docs/protocol.md#blocked-work); the wait is `awaiting` too, of kind `blocked`:
 *   resuming ──decided(blocked)──▶ blocking ──blocked──▶ delayed
 *   (woken) awaiting ──unblocked──▶ delegating (the round again, with the unblock notes)
 *                    ──answers_pending──▶ delayed     ──answers_expired──▶ answering (blocked)
 *
 * A job with no round whose policy cannot go on yet (its model has no room) leaves its worker and
 * starts afresh later (docs/operations.md#waiting-without-holding-a-worker):
 *   fresh ──decided(wait)──▶ deferring ──deferred──▶ deferred
 */

type Child = StepState['children'][number];

export type Phase =
  /** No delegations yet: the policy's `start` decides. */
  | { readonly kind: 'fresh' }
  /** The job's own step state cannot be read: stop whatever children it had, and answer failed. */
  | { readonly kind: 'corrupt'; readonly error: Error }
  /** Poison work (crash-guard.ts): its policy is not run again; its children are stopped, and it answers from its policy's record, if any. */
  | { readonly kind: 'poisoned'; readonly state: StepState | null; readonly crashes: number }
  /** Reading the current round's outcomes; `give-up` once the job was woken and children are still silent. */
  | { readonly kind: 'collecting'; readonly state: StepState; readonly mode: 'wait' | 'give-up'; readonly received: readonly SettledChild[] }
  /** Children still out: those a crash kept from being added are added, and the job parks again on the same round. */
  | { readonly kind: 'waiting'; readonly state: StepState; readonly absent: readonly Child[] }
  /** The round settled: the policy's `resume` decides. */
  | { readonly kind: 'resuming'; readonly state: StepState; readonly round: SettledRound }
  /** Cancelled or out of time with children out: read what has settled and answer with it. */
  | { readonly kind: 'stopping'; readonly state: StepState; readonly stop: StopReason; readonly received: readonly SettledChild[] }
  /** Sending the policy's delegations (its state and Beads writes first, then the child jobs). */
  | { readonly kind: 'delegating'; readonly previous: StepState | null; readonly step: DelegateStep; readonly received: readonly SettledChild[] }
  /** Sending the job's outcome; `stop` says why, when the job was stopped. */
  | { readonly kind: 'answering'; readonly state: StepState | null; readonly draft: OutcomeDraft; readonly received: readonly SettledChild[]; readonly stop: StopReason | null }
  /** Putting the round's questions to a person: the root publishes them and waits (BullMQ's delayed) until answered or out of time. */
  | { readonly kind: 'asking'; readonly state: StepState; readonly draft: OutcomeDraft; readonly received: readonly SettledChild[] }
  /** Holding a round that came back blocked: the root publishes its blockers and waits (BullMQ's delayed) until unblocked or out of time. */
  | { readonly kind: 'blocking'; readonly state: StepState; readonly draft: OutcomeDraft; readonly received: readonly SettledChild[] }
  /** Woken while waiting for answers or for blocked work to be unblocked: go on, wait on, or give up. */
  | { readonly kind: 'awaiting'; readonly state: StepState; readonly awaiting: Awaiting }
  /** A job with no round that cannot go on before `until`: it waits in BullMQ's delayed set and starts afresh then. */
  | { readonly kind: 'deferring'; readonly until: number; readonly reason: string }
  /** Ends: waiting for children (BullMQ's waiting-children), for answers or for room (BullMQ's delayed), answered, or handed back to BullMQ to retry. */
  | { readonly kind: 'parked' }
  | { readonly kind: 'delayed' }
  | { readonly kind: 'deferred' }
  | { readonly kind: 'answered'; readonly outcome: OutcomeMessage }
  | { readonly kind: 'retrying'; readonly error: unknown };

export type PhaseKind = Phase['kind'];
export type PhaseOf<K extends PhaseKind> = Extract<Phase, { kind: K }>;

export type PassEvent =
  | { readonly type: 'decided'; readonly step: Step }
  | { readonly type: 'failed'; readonly error: unknown }
  | { readonly type: 'stopped'; readonly stop: StopReason }
  | { readonly type: 'cleared' }
  /** What the policy recorded of a finished run of poison work (null: nothing). */
  | { readonly type: 'recalled'; readonly recorded: OutcomeDraft | null }
  | { readonly type: 'round_pending'; readonly absent: readonly Child[] }
  | { readonly type: 'round_settled'; readonly round: SettledRound }
  | { readonly type: 'parked' }
  | { readonly type: 'woken' }
  | { readonly type: 'delegated'; readonly state: StepState; readonly parked: boolean }
  /** A handoff interceptor refused a delegation before anything was sent (docs/protocol.md#handoff-interceptors). */
  | { readonly type: 'refused'; readonly error: TierflowError }
  | { readonly type: 'answered'; readonly outcome: OutcomeMessage }
  | { readonly type: 'asked' }
  | { readonly type: 'answers_complete'; readonly answers: readonly Clarification[] }
  /** The wait, for answers or for an unblock, goes on; or it ran out. */
  | { readonly type: 'answers_pending' }
  | { readonly type: 'answers_expired' }
  | { readonly type: 'blocked' }
  | { readonly type: 'unblocked'; readonly notes: readonly UnblockNote[] }
  | { readonly type: 'deferred' };

type EventOf<T extends PassEvent['type']> = Extract<PassEvent, { type: T }>;
/** What can end a phase that runs a policy or reads Redis on the way to a decision. */
type Deciding = EventOf<'failed' | 'stopped'>;

/** The events each phase's effect can report: the compiler holds run-pass.ts to these. */
export interface PhaseEvents {
  fresh: EventOf<'decided'> | Deciding;
  corrupt: EventOf<'cleared'> | Deciding;
  poisoned: EventOf<'recalled'>;
  collecting: EventOf<'round_pending' | 'round_settled'> | Deciding;
  waiting: EventOf<'parked' | 'woken'> | Deciding;
  resuming: EventOf<'decided'> | Deciding;
  stopping: EventOf<'round_pending' | 'round_settled'> | Deciding;
  delegating: EventOf<'delegated' | 'refused'>;
  answering: EventOf<'answered'>;
  asking: EventOf<'asked'>;
  blocking: EventOf<'blocked'>;
  awaiting: EventOf<'answers_complete' | 'unblocked' | 'answers_pending' | 'answers_expired'> | Deciding;
  deferring: EventOf<'deferred'>;
  parked: never;
  delayed: never;
  deferred: never;
  answered: never;
  retrying: never;
}

/** The terminal phases: a pass that reaches one is over. */
export type Terminal = PhaseOf<'parked' | 'delayed' | 'deferred' | 'answered' | 'retrying'>;
export function isTerminal(phase: Phase): phase is Terminal {
  return ACCEPTS[phase.kind].length === 0;
}

/** The events each phase takes, as data: what the table tests walk, and what {@link transition} checks. */
export const ACCEPTS: { readonly [K in PhaseKind]: readonly PhaseEvents[K]['type'][] } = {
  fresh: ['decided', 'failed', 'stopped'],
  corrupt: ['cleared', 'failed', 'stopped'],
  poisoned: ['recalled'],
  collecting: ['round_pending', 'round_settled', 'failed', 'stopped'],
  waiting: ['parked', 'woken', 'failed', 'stopped'],
  resuming: ['decided', 'failed', 'stopped'],
  stopping: ['round_pending', 'round_settled', 'failed', 'stopped'],
  delegating: ['delegated', 'refused'],
  answering: ['answered'],
  asking: ['asked'],
  blocking: ['blocked'],
  awaiting: ['answers_complete', 'unblocked', 'answers_pending', 'answers_expired', 'failed', 'stopped'],
  deferring: ['deferred'],
  parked: [],
  delayed: [],
  deferred: [],
  answered: [],
  retrying: [],
};

/** What the transitions need to know of the pass, fixed for its length. */
export interface PassRules {
  readonly tier: TierName;
  /** This delivery's attempt (1-based) and how many BullMQ allows. */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** Whether a question this job's round asks waits here for a person (the root, unless waits are off). */
  readonly asks: boolean;
  /** Whether blocked work this job's round reports waits here to be unblocked (the root, unless those waits are off). */
  readonly waitsOnBlocked?: boolean;
  /** The job's `on_timeout` (docs/protocol.md#error-policies): out of time, answer `partial` with what its children brought, or `timeout`. */
  readonly onTimeout: TimeoutPolicy;
  /** Who may hand work to whom (docs/protocol.md#collaboration-boundaries); null: anyone to the tier below. */
  readonly boundaries: Boundaries | null;
}

/** What the job knows of itself as the pass opens (see JobFacts). */
export interface Opening {
  readonly state: StepState | null;
  readonly corrupt: Error | null;
  /** A cancellation mark or timeout record, or the job's own answer-by time already past. */
  readonly stop: StopReason | null;
  /** Why a handoff interceptor refused the delegation as this job received it; null: taken. */
  readonly refused?: TierflowError | null;
  /** How often its workers died running it, when that makes it poison work (crash-guard.ts); null: it is not. */
  readonly poison?: number | null;
}

/** The first phase of a pass. */
export function openingPhase({ state, corrupt, stop, refused = null, poison = null }: Opening): Phase {
  if (poison !== null) return { kind: 'poisoned', state, crashes: poison };
  if (corrupt) return { kind: 'corrupt', error: corrupt };
  if (state === null) {
    if (stop) return answering(null, stoppedDraft(stop), [], stop);
    // A refusal is permanent: what attempt this is does not change the answer.
    return refused ? answering(null, failureDraft(refused, 1), []) : { kind: 'fresh' };
  }
  if (state.awaiting) return stop ? answering(state, unansweredDraft(state.awaiting, stop), [], stop) : { kind: 'awaiting', state, awaiting: state.awaiting };
  return stop ? { kind: 'stopping', state, stop, received: [] } : { kind: 'collecting', state, mode: 'wait', received: [] };
}

type Transitions = { readonly [K in PhaseKind]: (phase: PhaseOf<K>, event: PhaseEvents[K], rules: PassRules) => Phase };

const TRANSITIONS: Transitions = {
  fresh: (_, event, rules) => {
    switch (event.type) {
      case 'decided':
        return decide(event.step, null, [], rules);
      case 'failed':
        return fail(event.error, null, [], rules);
      case 'stopped':
        return answering(null, stoppedDraft(event.stop), [], event.stop);
    }
  },
  corrupt: (phase, event, rules) => {
    switch (event.type) {
      case 'cleared':
        return answering(null, failureDraft(phase.error, rules.attempt), []);
      case 'failed':
        return fail(event.error, null, [], rules);
      case 'stopped':
        return answering(null, stoppedDraft(event.stop), [], event.stop);
    }
  },
  // An answer whatever happens: poison work is never handed back to run again.
  poisoned: (phase, event) => answering(phase.state, event.recorded ?? crashedDraft(phase.crashes), [], null),
  collecting: (phase, event, rules) => {
    switch (event.type) {
      case 'round_pending':
        return { kind: 'waiting', state: phase.state, absent: event.absent };
      case 'round_settled':
        return { kind: 'resuming', state: phase.state, round: event.round };
      case 'failed':
        return fail(event.error, phase.state, phase.received, rules);
      case 'stopped':
        return { kind: 'stopping', state: phase.state, stop: event.stop, received: phase.received };
    }
  },
  waiting: (phase, event, rules) => {
    switch (event.type) {
      case 'parked':
        return { kind: 'parked' };
      case 'woken':
        // Woken, yet some children never answered: the next read reports them failed.
        return { kind: 'collecting', state: phase.state, mode: 'give-up', received: [] };
      case 'failed':
        return fail(event.error, phase.state, [], rules);
      case 'stopped':
        return { kind: 'stopping', state: phase.state, stop: event.stop, received: [] };
    }
  },
  resuming: (phase, event, rules) => {
    switch (event.type) {
      case 'decided':
        return decide(event.step, phase.state, phase.round.children, rules);
      case 'failed':
        return fail(event.error, phase.state, phase.round.children, rules);
      case 'stopped':
        return { kind: 'stopping', state: phase.state, stop: event.stop, received: phase.round.children };
    }
  },
  stopping: (phase, event, rules) => {
    switch (event.type) {
      case 'round_settled':
        return answering(phase.state, stopped(phase.state, phase.stop, event.round.children, rules), event.round.children, phase.stop);
      case 'round_pending': // a stopping read leaves the silent children out, so never pending
      case 'stopped':
        return answering(phase.state, stopped(phase.state, phase.stop, phase.received, rules), phase.received, phase.stop);
      case 'failed':
        return fail(event.error, phase.state, phase.received, rules);
    }
  },
  delegating: (phase, event, rules) => {
    switch (event.type) {
      case 'delegated':
        return event.parked ? { kind: 'parked' } : { kind: 'collecting', state: event.state, mode: 'wait', received: [] };
      case 'refused':
        return answering(phase.previous, failureDraft(event.error, rules.attempt), phase.received);
    }
  },
  answering: (_, event) => ({ kind: 'answered', outcome: event.outcome }),
  asking: () => ({ kind: 'delayed' }),
  blocking: () => ({ kind: 'delayed' }),
  awaiting: (phase, event, rules) => {
    switch (event.type) {
      case 'answers_complete':
        return decide(answeredRound(phase.state, event.answers), phase.state, [], rules);
      case 'unblocked':
        return decide(unblockedRound(phase.state, event.notes), phase.state, [], rules);
      case 'answers_pending':
        return { kind: 'delayed' };
      case 'answers_expired':
        return answering(phase.state, unansweredDraft(phase.awaiting, null), []);
      case 'failed':
        return fail(event.error, phase.state, [], rules);
      case 'stopped':
        // The round already settled: what it brought is in the question's draft, so no read.
        return answering(phase.state, unansweredDraft(phase.awaiting, event.stop), [], event.stop);
    }
  },
  deferring: () => ({ kind: 'deferred' }),
  parked: (phase) => phase,
  delayed: (phase) => phase,
  deferred: (phase) => phase,
  answered: (phase) => phase,
  retrying: (phase) => phase,
};

/**
 * The phase after `phase` reports `event`. An event the phase does not take is a bug in the
 * engine, not something input can cause: it throws rather than guess.
 */
export function transition(phase: Phase, event: PassEvent, rules: PassRules): Phase {
  if (!(ACCEPTS[phase.kind] as readonly string[]).includes(event.type)) {
    throw new TierflowError(`the engine's ${phase.kind} phase cannot take a ${event.type} event`, { code: 'engine_invariant' });
  }
  // The check above holds each phase to its own events; TypeScript cannot follow that through one lookup.
  return (TRANSITIONS[phase.kind] as (phase: Phase, event: PassEvent, rules: PassRules) => Phase)(phase, event, rules);
}

/** A stopped parent's answer, counting the subtasks of every round below it (usage-rollup.ts). */
function stopped(state: StepState, stop: StopReason, received: readonly SettledChild[], rules: PassRules): OutcomeDraft {
  return stoppedDraft(stop, received, state.children.length, rules.onTimeout, subtasksBelow(state, received));
}

function answering(state: StepState | null, draft: OutcomeDraft, received: readonly SettledChild[], stop: StopReason | null = null): Phase {
  return { kind: 'answering', state, draft, received, stop };
}

/** A policy's step: an outcome to send, a wait, or delegations, unless the fan-out guard refuses them. */
function decide(step: Step, state: StepState | null, received: readonly SettledChild[], rules: PassRules): Phase {
  if (step.kind === 'wait') {
    // Started afresh after the wait, a job with a round would lose it: only one without may wait.
    if (state === null) return { kind: 'deferring', until: step.until, reason: step.reason };
    return answering(state, failureDraft(new TierflowError(`${rules.tier} waited with a round out (${step.reason})`, { code: 'engine_invariant' }), rules.attempt), received);
  }
  if (step.kind === 'outcome') {
    // Only a round can be sent again with answers: a job that asks at once answers as it is.
    if (rules.asks && state !== null && step.outcome.status === 'needs_clarification') return { kind: 'asking', state, draft: step.outcome, received };
    // Likewise only a round can be sent again once unblocked.
    if (rules.waitsOnBlocked && state !== null && step.outcome.status === 'blocked') return { kind: 'blocking', state, draft: step.outcome, received };
    return answering(state, step.outcome, received);
  }
  const refused = refusal(rules.tier, step, rules.boundaries);
  if (refused) return answering(state, failureDraft(refused, rules.attempt), received);
  return { kind: 'delegating', previous: state, step, received };
}

/** An error on the way to a decision: BullMQ retries a transient one while attempts are left; otherwise the job answers failed. */
function fail(error: unknown, state: StepState | null, received: readonly SettledChild[], rules: PassRules): Phase {
  if (!isPermanent(error) && rules.attempt < rules.maxAttempts) return { kind: 'retrying', error };
  return answering(state, failureDraft(error, rules.attempt), received);
}

/**
 * The nested fan-out guard (docs/protocol.md): only to the tier directly below, never from the
 * Fleet, never nothing; and every child within the sender's collaboration boundaries, refused
 * before anything is sent with where the sender may hand work instead.
 */
export function refusal(tier: TierName, step: DelegateStep, boundaries: Boundaries | null = null): TierflowError | null {
  const below = tierBelow(tier);
  const guard = checkDelegation(tier, below ?? tier);
  if (!guard.ok) return TierflowError.permanent(guard.reason, { code: 'delegation_refused' });
  if (step.children.length === 0) return TierflowError.permanent(`${tier} delegated no children`, { code: 'delegation_refused' });
  for (const child of step.children) {
    const to = targetParty(TIER_SLUGS[below!], child.specialist_hint ?? child.target_agent?.agent_id);
    const verdict = checkBoundary(boundaries, TIER_SLUGS[tier], to);
    if (!verdict.ok) return TierflowError.permanent(`${verdict.reason}; it may hand work to ${verdict.allowed.join(', ') || 'no one'}`, { code: ERROR_TYPES.boundaryViolation });
  }
  return null;
}
