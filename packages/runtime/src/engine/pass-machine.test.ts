import { TierflowError } from '@tierflow/protocol';
import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { StopReason } from '../cancellation/control-listener.js';
import type { SettledRound, Step } from '../policy/handler.js';
import { delegationTo, settle } from '../testing/index.js';
import { ACCEPTS, isTerminal, openingPhase, transition, type PassEvent, type PassRules, type Phase, type PhaseKind } from './pass-machine.js';
import type { StepState } from '../steps/step-store.js';

// The engine's transitions, driven through every phase and event without Redis.

const DISPATCHER: PassRules = { tier: 'ROUTING_DISPATCHER', attempt: 1, maxAttempts: 3, asks: false, onTimeout: 'escalate', boundaries: null };
const ROOT: PassRules = { tier: 'PROGRESS_MONITOR', attempt: 1, maxAttempts: 3, asks: true, waitsOnBlocked: true, onTimeout: 'escalate', boundaries: null };
const LAST_TRY: PassRules = { ...DISPATCHER, attempt: 3 };
const assignment = delegationTo('ROUTING_DISPATCHER', 'root-1.0-0', { task_type: 'decompose', objective: 'split the work' });
const delegate: Extract<Step, { kind: 'delegate' }> = {
  kind: 'delegate',
  strategy: 'all_success',
  children: [
    { task_type: 'code', objective: 'a' },
    { task_type: 'code', objective: 'b' },
  ],
};
const round: SettledRound = settle(assignment, 'ROUTING_DISPATCHER', delegate, 0, (_, index) =>
  index === 0
    ? { status: 'success', summary: 'a done', confidence: 0.9, artifacts: [{ artifact_type: 'text', inline_content: 'A', content_ref: null }] }
    : { status: 'failed', summary: 'b failed', confidence: 0 },
);
const state: StepState = {
  round: 0,
  strategy: 'all_success',
  children: round.children.map((child) => ({ id: child.id, index: child.index, request: child.request, deadline: null })),
  memo: {},
  answer_by: null,
};
const cancelled: StopReason = { status: 'cancelled', reason: 'the operator cancelled it' };
const outcome: Step = { kind: 'outcome', outcome: { status: 'success', summary: 'done', confidence: 0.8 } };
const answered = { ...round.children[0]!.outcome };
const question = { id: 'root-1.0-0-1.out', question: 'Which variant?', tier: 'SPECIALIZED_FLEET' as const };
const asked = { status: 'needs_clarification' as const, summary: 'asks', confidence: 0.5, artifacts: [{ artifact_type: 'text', inline_content: 'A', content_ref: null }] };
const awaiting = { asked_at: 1_000, until: 61_000, questions: [question], draft: asked };
const waiting: StepState = { ...state, awaiting };
const answers = [{ question_id: question.id, question: question.question, answer: 'the blue one' }];
const blocker = { id: 'root-1.0-0-1.out', blocker: 'Waiting for the API key', tier: 'SPECIALIZED_FLEET' as const };
const held = { status: 'blocked' as const, summary: 'blocked', confidence: 0.5, artifacts: [{ artifact_type: 'text', inline_content: 'A', content_ref: null }] };
const blockedWait = { kind: 'blocked' as const, asked_at: 1_000, until: 61_000, blockers: [blocker], draft: held };
const blockedState: StepState = { ...state, awaiting: blockedWait };
const notes = [{ blocker_id: blocker.id, blocker: blocker.blocker, note: 'key issued' }];

/** One of each phase. */
const PHASES: { readonly [K in PhaseKind]: Extract<Phase, { kind: K }> } = {
  fresh: { kind: 'fresh' },
  corrupt: { kind: 'corrupt', error: new TierflowError('step state is not JSON', { code: 'corrupt_record' }) },
  poisoned: { kind: 'poisoned', state, crashes: 3 },
  collecting: { kind: 'collecting', state, mode: 'wait', received: [] },
  waiting: { kind: 'waiting', state, absent: [] },
  resuming: { kind: 'resuming', state, round },
  stopping: { kind: 'stopping', state, stop: cancelled, received: [] },
  delegating: { kind: 'delegating', previous: null, step: delegate, received: [] },
  answering: { kind: 'answering', state: null, draft: { status: 'success', summary: 'done', confidence: 0.8 }, received: [], stop: null },
  asking: { kind: 'asking', state, draft: asked, received: round.children },
  blocking: { kind: 'blocking', state, draft: held, received: round.children },
  awaiting: { kind: 'awaiting', state: waiting, awaiting },
  deferring: { kind: 'deferring', until: 5_000, reason: 'gpt: over its rpm limit' },
  parked: { kind: 'parked' },
  delayed: { kind: 'delayed' },
  deferred: { kind: 'deferred' },
  answered: { kind: 'answered', outcome: answered },
  retrying: { kind: 'retrying', error: new Error('busy') },
};

/** One of each event. */
const EVENTS: { readonly [T in PassEvent['type']]: Extract<PassEvent, { type: T }> } = {
  decided: { type: 'decided', step: delegate },
  failed: { type: 'failed', error: new Error('redis went away') },
  stopped: { type: 'stopped', stop: cancelled },
  cleared: { type: 'cleared' },
  recalled: { type: 'recalled', recorded: null },
  round_pending: { type: 'round_pending', absent: state.children.slice(1) },
  round_settled: { type: 'round_settled', round },
  parked: { type: 'parked' },
  woken: { type: 'woken' },
  delegated: { type: 'delegated', state, parked: true },
  refused: { type: 'refused', error: TierflowError.permanent('redact refused the delegation root-1.0-0.0-0 from ROUTING_DISPATCHER to SPECIALIZED_FLEET: a secret', { code: 'handoff_refused' }) },
  answered: { type: 'answered', outcome: answered },
  asked: { type: 'asked' },
  answers_complete: { type: 'answers_complete', answers },
  blocked: { type: 'blocked' },
  unblocked: { type: 'unblocked', notes },
  answers_pending: { type: 'answers_pending' },
  answers_expired: { type: 'answers_expired' },
  deferred: { type: 'deferred' },
};

/** Where each phase goes on each event it takes (with the events above and the Dispatcher's first attempt). */
const TABLE: { readonly [K in PhaseKind]: Partial<Record<PassEvent['type'], PhaseKind>> } = {
  fresh: { decided: 'delegating', failed: 'retrying', stopped: 'answering' },
  corrupt: { cleared: 'answering', failed: 'retrying', stopped: 'answering' },
  poisoned: { recalled: 'answering' },
  collecting: { round_pending: 'waiting', round_settled: 'resuming', failed: 'retrying', stopped: 'stopping' },
  waiting: { parked: 'parked', woken: 'collecting', failed: 'retrying', stopped: 'stopping' },
  resuming: { decided: 'delegating', failed: 'retrying', stopped: 'stopping' },
  stopping: { round_pending: 'answering', round_settled: 'answering', failed: 'retrying', stopped: 'answering' },
  delegating: { delegated: 'parked', refused: 'answering' },
  answering: { answered: 'answered' },
  asking: { asked: 'delayed' },
  blocking: { blocked: 'delayed' },
  awaiting: { answers_complete: 'delegating', unblocked: 'delegating', answers_pending: 'delayed', answers_expired: 'answering', failed: 'retrying', stopped: 'answering' },
  deferring: { deferred: 'deferred' },
  parked: {},
  delayed: {},
  deferred: {},
  answered: {},
  retrying: {},
};

describe('the pass machine', () => {
  const pairs = Object.values(PHASES).flatMap((phase) => Object.values(EVENTS).map((event) => [phase.kind, event.type, phase, event] as const));

  it.each(pairs)('%s on %s', (_, __, phase, event) => {
    const expected = TABLE[phase.kind][event.type];
    expect((ACCEPTS[phase.kind] as readonly string[]).includes(event.type)).toBe(expected !== undefined);
    if (expected === undefined) {
      expect(() => transition(phase, event, DISPATCHER)).toThrow(expect.objectContaining({ code: 'engine_invariant' }) as Error);
    } else {
      expect(transition(phase, event, DISPATCHER).kind).toBe(expected);
    }
  });

  it('ends in exactly the five terminal phases', () => {
    expect(
      Object.values(PHASES)
        .filter(isTerminal)
        .map((phase) => phase.kind),
    ).toEqual(['parked', 'delayed', 'deferred', 'answered', 'retrying']);
  });

  describe('opening', () => {
    const corrupt = new TierflowError('bad', { code: 'corrupt_record' });
    it.each([
      ['a corrupt step state, whatever else holds', { state, corrupt, stop: cancelled }, 'corrupt'],
      ['no step state: the policy starts', { state: null, corrupt: null, stop: null }, 'fresh'],
      ['no step state and stopped: answer at once', { state: null, corrupt: null, stop: cancelled }, 'answering'],
      ['children out: read the round', { state, corrupt: null, stop: null }, 'collecting'],
      ['children out and stopped: read what settled', { state, corrupt: null, stop: cancelled }, 'stopping'],
      ['waiting for answers: read them', { state: waiting, corrupt: null, stop: null }, 'awaiting'],
      ['waiting for answers and stopped: answer at once', { state: waiting, corrupt: null, stop: cancelled }, 'answering'],
      ['blocked: read the unblocks', { state: blockedState, corrupt: null, stop: null }, 'awaiting'],
      ['blocked and stopped: answer at once', { state: blockedState, corrupt: null, stop: cancelled }, 'answering'],
      ['no step state and refused by an interceptor: answer at once', { state: null, corrupt: null, stop: null, refused: EVENTS.refused.error }, 'answering'],
      ['poison work, whatever else holds: its policy is not run again', { state, corrupt, stop: null, refused: EVENTS.refused.error, poison: 3 }, 'poisoned'],
    ] as const)('%s', (_, opening, kind) => {
      expect(openingPhase(opening).kind).toBe(kind);
    });

    it('a job stopped before it ran answers with the stop and no children', () => {
      expect(openingPhase({ state: null, corrupt: null, stop: cancelled })).toMatchObject({ kind: 'answering', state: null, received: [], draft: { status: 'cancelled', error_type: 'cancelled' } });
    });
  });

  it('poison work answers its policy’s record of a finished run, else worker_crashed, with the round it had out', () => {
    const recorded = { status: 'success' as const, summary: 'done before the crash', confidence: 0.7 };
    expect(transition(PHASES.poisoned, { type: 'recalled', recorded }, DISPATCHER)).toMatchObject({ kind: 'answering', state, draft: recorded, stop: null });
    expect(transition(PHASES.poisoned, EVENTS.recalled, DISPATCHER)).toMatchObject({ kind: 'answering', draft: { status: 'failed', error_type: 'worker_crashed' } });
  });

  it('a delegation an interceptor refused as it was received answers failed without running the policy', () => {
    expect(openingPhase({ state: null, corrupt: null, stop: null, refused: EVENTS.refused.error })).toMatchObject({
      kind: 'answering',
      state: null,
      draft: { status: 'failed', error_type: 'handoff_refused', error_detail: EVENTS.refused.error.message, recoverable: false },
    });
  });

  it('a round an interceptor refused as it was sent answers failed, with the round it resumed from', () => {
    const delegating: Phase = { kind: 'delegating', previous: state, step: delegate, received: round.children };
    expect(transition(delegating, EVENTS.refused, DISPATCHER)).toMatchObject({
      kind: 'answering',
      state,
      received: round.children,
      draft: { status: 'failed', error_type: 'handoff_refused', recoverable: false },
    });
  });

  describe('decisions', () => {
    it('an outcome answers, carrying the round it resumed from', () => {
      const next = transition(PHASES.resuming, { type: 'decided', step: outcome }, DISPATCHER);
      expect(next).toMatchObject({ kind: 'answering', state, draft: { status: 'success' }, received: round.children });
    });

    it('delegations after a round go out as the next round, after the one they replace', () => {
      expect(transition(PHASES.resuming, EVENTS.decided, DISPATCHER)).toMatchObject({ kind: 'delegating', previous: state, received: round.children });
    });

    it('a job with no round that cannot go on yet leaves its worker until then; one with a round out answers failed, as a bug', () => {
      const wait: Step = { kind: 'wait', until: 5_000, reason: 'gpt: over its rpm limit' };
      expect(transition(PHASES.fresh, { type: 'decided', step: wait }, { ...DISPATCHER, tier: 'SPECIALIZED_FLEET' })).toEqual({ kind: 'deferring', until: 5_000, reason: 'gpt: over its rpm limit' });
      expect(transition(PHASES.resuming, { type: 'decided', step: wait }, DISPATCHER)).toMatchObject({
        kind: 'answering',
        state,
        received: round.children,
        draft: { status: 'failed', error_type: 'engine_invariant', recoverable: false },
      });
    });

    it('the Fleet may not delegate, and no tier may delegate nothing', () => {
      const fleet = transition(PHASES.fresh, EVENTS.decided, { ...DISPATCHER, tier: 'SPECIALIZED_FLEET' });
      expect(fleet).toMatchObject({ kind: 'answering', draft: { status: 'failed', error_type: 'delegation_refused', recoverable: false } });
      const empty = transition(PHASES.fresh, { type: 'decided', step: { ...delegate, children: [] } }, DISPATCHER);
      expect(empty).toMatchObject({ kind: 'answering', draft: { status: 'failed', error_type: 'delegation_refused' } });
    });

    it('a round with a child outside the collaboration boundaries is refused before it is sent, naming the allowed targets', () => {
      const bounded = { ...DISPATCHER, boundaries: { dispatcher: ['fleet:sim', 'fleet:py-*'] } };
      const step = {
        ...delegate,
        children: [
          { ...delegate.children[0]!, specialist_hint: 'py-lora' },
          { ...delegate.children[1]!, specialist_hint: 'shell' },
        ],
      };
      expect(transition(PHASES.fresh, { type: 'decided', step }, bounded)).toMatchObject({
        kind: 'answering',
        draft: {
          status: 'failed',
          error_type: 'boundary_violation',
          error_detail: 'dispatcher may not hand work to fleet:shell: outside its collaboration boundaries; it may hand work to fleet:sim, fleet:py-*',
          recoverable: false,
        },
      });
      const within = { ...step, children: [step.children[0]!] };
      expect(transition(PHASES.fresh, { type: 'decided', step: within }, bounded)).toMatchObject({ kind: 'delegating' });
    });
  });

  describe('failures', () => {
    it('a transient error is retried while attempts are left', () => {
      expect(transition(PHASES.fresh, EVENTS.failed, DISPATCHER)).toEqual({ kind: 'retrying', error: EVENTS.failed.error });
    });

    it('on the last attempt it answers failed, recoverable', () => {
      expect(transition(PHASES.resuming, EVENTS.failed, LAST_TRY)).toMatchObject({
        kind: 'answering',
        received: round.children,
        draft: { status: 'failed', error_type: 'retries_exhausted', recoverable: true },
      });
    });

    it('a permanent error answers failed at once, with its code', () => {
      const permanent = TierflowError.permanent('no such repository', { code: 'not_found', kind: 'not_found' });
      expect(transition(PHASES.fresh, { type: 'failed', error: permanent }, DISPATCHER)).toMatchObject({ kind: 'answering', draft: { error_type: 'not_found', recoverable: false } });
      expect(transition(PHASES.fresh, { type: 'failed', error: new UnrecoverableError('bad') }, DISPATCHER)).toMatchObject({ kind: 'answering', draft: { error_type: 'permanent_error' } });
    });

    it('a corrupt step state answers failed with the corruption, once its children are cleared', () => {
      expect(transition(PHASES.corrupt, EVENTS.cleared, DISPATCHER)).toMatchObject({ kind: 'answering', state: null, draft: { status: 'failed', error_type: 'corrupt_record' } });
    });
  });

  describe('stopping', () => {
    it('with children out, a stop reads what settled before it answers', () => {
      expect(transition(PHASES.resuming, EVENTS.stopped, DISPATCHER)).toEqual({ kind: 'stopping', state, stop: cancelled, received: round.children });
    });

    it('answers with the artifacts of the children that had succeeded', () => {
      const next = transition(PHASES.stopping, EVENTS.round_settled, DISPATCHER);
      expect(next).toMatchObject({
        kind: 'answering',
        received: round.children,
        draft: { status: 'cancelled', recoverable: false, artifacts: [{ artifact_type: 'text', inline_content: 'A', content_ref: null }] },
      });
      expect(next.kind === 'answering' && next.draft.summary).toBe('cancelled: the operator cancelled it; 1 of 2 delegated subtasks had succeeded');
    });

    it('counts the subtasks below it as the run’s tree shows them: the leaves under a child that stopped, over every round', () => {
      // An Architect's second round: one Dispatcher, out of time with 2 of its 4 leaves done; its first round had 1 of 3.
      const architect = delegationTo('ABSTRACT_ARCHITECT', 'root-1.0-0', { task_type: 'solve', objective: 'solve it' });
      const revision = settle(architect, 'ABSTRACT_ARCHITECT', { kind: 'delegate', strategy: 'all_success', children: [{ task_type: 'decompose', objective: 'all' }] }, 1, () => ({
        status: 'timeout',
        summary: 'timed out: no answer within timeout_ms 1000; 2 of 4 delegated subtasks had succeeded',
        confidence: 0,
        resources_used: { subtasks: { delegated: 4, succeeded: 2 } },
      }));
      const second: StepState = {
        ...state,
        round: 1,
        children: revision.children.map((child) => ({ id: child.id, index: child.index, request: child.request, deadline: null })),
        subtasks: { delegated: 3, succeeded: 1 },
      };
      const timeout: StopReason = { status: 'timeout', reason: 'no answer within timeout_ms 5000' };
      const next = transition({ kind: 'stopping', state: second, stop: timeout, received: [] }, { type: 'round_settled', round: revision }, DISPATCHER);
      expect(next.kind === 'answering' && next.draft.summary).toBe('timed out: no answer within timeout_ms 5000; 3 of 7 delegated subtasks had succeeded');
      // Stopped before its child answered, the child counts as one subtask not done.
      const early = transition({ kind: 'stopping', state: { ...second, subtasks: undefined }, stop: timeout, received: [] }, EVENTS.stopped, DISPATCHER);
      expect(early.kind === 'answering' && early.draft.summary).toBe('timed out: no answer within timeout_ms 5000; 0 of 1 delegated subtask had succeeded');
    });

    it('a timeout is recoverable', () => {
      const timeout: StopReason = { status: 'timeout', reason: 'no answer within timeout_ms 1000' };
      expect(transition({ kind: 'stopping', state, stop: timeout, received: [] }, EVENTS.round_settled, DISPATCHER)).toMatchObject({ draft: { status: 'timeout', recoverable: true } });
    });

    it('stopped again while reading, it answers with what it had rather than read forever', () => {
      const stopping: Phase = { kind: 'stopping', state, stop: cancelled, received: round.children };
      expect(transition(stopping, EVENTS.stopped, DISPATCHER)).toMatchObject({ kind: 'answering', received: round.children, draft: { status: 'cancelled' } });
    });
  });

  describe('children', () => {
    it('children missing after a crash are added again, and the job waits on the same round', () => {
      expect(transition(PHASES.collecting, EVENTS.round_pending, DISPATCHER)).toEqual({ kind: 'waiting', state, absent: EVENTS.round_pending.absent });
    });

    it('woken with children still silent, the next read gives up on them', () => {
      expect(transition(PHASES.waiting, EVENTS.woken, DISPATCHER)).toEqual({ kind: 'collecting', state, mode: 'give-up', received: [] });
    });

    it('children that answered before the parent could park are read at once', () => {
      expect(transition(PHASES.delegating, { type: 'delegated', state, parked: false }, DISPATCHER)).toEqual({ kind: 'collecting', state, mode: 'wait', received: [] });
    });
  });

  describe('questions for a person', () => {
    const asks: Step = { kind: 'outcome', outcome: asked };

    it('at the root, a round that comes back asking waits for answers', () => {
      expect(transition({ ...PHASES.resuming, state }, { type: 'decided', step: asks }, ROOT)).toEqual({ kind: 'asking', state, draft: asked, received: round.children });
    });

    it('below the root, or with waits off, the question is answered up as it is', () => {
      expect(transition(PHASES.resuming, { type: 'decided', step: asks }, DISPATCHER)).toMatchObject({ kind: 'answering', draft: asked });
    });

    it('a root that asks before it delegated anything has no round to send again, and answers', () => {
      expect(transition(PHASES.fresh, { type: 'decided', step: asks }, ROOT)).toMatchObject({ kind: 'answering', state: null, draft: asked });
    });

    it('answered, it sends the same round again with the answers in every child', () => {
      const next = transition(PHASES.awaiting, EVENTS.answers_complete, ROOT);
      expect(next).toMatchObject({ kind: 'delegating', previous: waiting, received: [], step: { strategy: 'all_success' } });
      const children = next.kind === 'delegating' ? next.step.children : [];
      expect(children.map((child) => child.objective)).toEqual(['a', 'b']);
      expect(children.map((child) => child.task_data?.clarifications)).toEqual([answers, answers]);
    });

    it('out of time for answers, it answers the question as asked, saying none came', () => {
      const next = transition(PHASES.awaiting, EVENTS.answers_expired, ROOT);
      expect(next).toMatchObject({ kind: 'answering', state: waiting, received: [], draft: { status: 'needs_clarification', summary: 'asks (no answer within 1 min)', questions: [question] } });
    });

    it('cancelled while it waits, it answers cancelled with what the round had brought', () => {
      const next = transition(PHASES.awaiting, EVENTS.stopped, ROOT);
      expect(next).toMatchObject({ kind: 'answering', draft: { status: 'cancelled', artifacts: asked.artifacts } });
    });
  });

  describe('blocked work', () => {
    const blocks: Step = { kind: 'outcome', outcome: held };
    const phase: Phase = { kind: 'awaiting', state: blockedState, awaiting: blockedWait };

    it('at the root, a round that comes back blocked waits to be unblocked', () => {
      expect(transition(PHASES.resuming, { type: 'decided', step: blocks }, ROOT)).toEqual({ kind: 'blocking', state, draft: held, received: round.children });
    });

    it('below the root, or with blocked waits off, it is answered up as it is', () => {
      expect(transition(PHASES.resuming, { type: 'decided', step: blocks }, DISPATCHER)).toMatchObject({ kind: 'answering', draft: held });
      expect(transition(PHASES.resuming, { type: 'decided', step: blocks }, { ...ROOT, waitsOnBlocked: false })).toMatchObject({ kind: 'answering', draft: held });
    });

    it('a root blocked before it delegated anything has no round to send again, and answers', () => {
      expect(transition(PHASES.fresh, { type: 'decided', step: blocks }, ROOT)).toMatchObject({ kind: 'answering', state: null, draft: held });
    });

    it('unblocked, it sends the same round again with the notes in every child', () => {
      const next = transition(phase, EVENTS.unblocked, ROOT);
      expect(next).toMatchObject({ kind: 'delegating', previous: blockedState, received: [], step: { strategy: 'all_success' } });
      const children = next.kind === 'delegating' ? next.step.children : [];
      expect(children.map((child) => child.task_data?.unblocked)).toEqual([notes, notes]);
    });

    it('out of time, it answers blocked with its blockers, saying it was not unblocked', () => {
      expect(transition(phase, EVENTS.answers_expired, ROOT)).toMatchObject({
        kind: 'answering',
        draft: { status: 'blocked', summary: 'blocked (not unblocked within 1 min)', blockers: [blocker] },
      });
    });

    it('woken early, it waits on; cancelled, it answers cancelled with what the round had brought', () => {
      expect(transition(phase, EVENTS.answers_pending, ROOT)).toEqual({ kind: 'delayed' });
      expect(transition(phase, EVENTS.stopped, ROOT)).toMatchObject({ kind: 'answering', draft: { status: 'cancelled', artifacts: held.artifacts } });
    });
  });
});
