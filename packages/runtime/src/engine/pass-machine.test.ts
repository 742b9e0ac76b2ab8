import { TierflowError } from '@tierflow/protocol';
import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { StopReason } from '../cancellation/control-listener.js';
import type { SettledRound, Step } from '../policy/handler.js';
import { delegationTo, settle } from '../testing/index.js';
import { ACCEPTS, isTerminal, openingPhase, transition, type PassEvent, type PassRules, type Phase, type PhaseKind } from './pass-machine.js';
import type { StepState } from './step-store.js';

// The engine's transitions, driven through every phase and event without Redis.

const DISPATCHER: PassRules = { tier: 'ROUTING_DISPATCHER', attempt: 1, maxAttempts: 3 };
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

/** One of each phase. */
const PHASES: { readonly [K in PhaseKind]: Extract<Phase, { kind: K }> } = {
  fresh: { kind: 'fresh' },
  corrupt: { kind: 'corrupt', error: new TierflowError('step state is not JSON', { code: 'corrupt_record' }) },
  collecting: { kind: 'collecting', state, mode: 'wait', received: [] },
  waiting: { kind: 'waiting', state, absent: [] },
  resuming: { kind: 'resuming', state, round },
  stopping: { kind: 'stopping', state, stop: cancelled, received: [] },
  delegating: { kind: 'delegating', previous: null, step: delegate, received: [] },
  answering: { kind: 'answering', state: null, draft: { status: 'success', summary: 'done', confidence: 0.8 }, received: [] },
  parked: { kind: 'parked' },
  answered: { kind: 'answered', outcome: answered },
  retrying: { kind: 'retrying', error: new Error('busy') },
};

/** One of each event. */
const EVENTS: { readonly [T in PassEvent['type']]: Extract<PassEvent, { type: T }> } = {
  decided: { type: 'decided', step: delegate },
  failed: { type: 'failed', error: new Error('redis went away') },
  stopped: { type: 'stopped', stop: cancelled },
  cleared: { type: 'cleared' },
  round_pending: { type: 'round_pending', absent: state.children.slice(1) },
  round_settled: { type: 'round_settled', round },
  parked: { type: 'parked' },
  woken: { type: 'woken' },
  delegated: { type: 'delegated', state, parked: true },
  answered: { type: 'answered', outcome: answered },
};

/** Where each phase goes on each event it takes (with the events above and the Dispatcher's first attempt). */
const TABLE: { readonly [K in PhaseKind]: Partial<Record<PassEvent['type'], PhaseKind>> } = {
  fresh: { decided: 'delegating', failed: 'retrying', stopped: 'answering' },
  corrupt: { cleared: 'answering', failed: 'retrying', stopped: 'answering' },
  collecting: { round_pending: 'waiting', round_settled: 'resuming', failed: 'retrying', stopped: 'stopping' },
  waiting: { parked: 'parked', woken: 'collecting', failed: 'retrying', stopped: 'stopping' },
  resuming: { decided: 'delegating', failed: 'retrying', stopped: 'stopping' },
  stopping: { round_pending: 'answering', round_settled: 'answering', failed: 'retrying', stopped: 'answering' },
  delegating: { delegated: 'parked' },
  answering: { answered: 'answered' },
  parked: {},
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

  it('ends in exactly the three terminal phases', () => {
    expect(
      Object.values(PHASES)
        .filter(isTerminal)
        .map((phase) => phase.kind),
    ).toEqual(['parked', 'answered', 'retrying']);
  });

  describe('opening', () => {
    const corrupt = new TierflowError('bad', { code: 'corrupt_record' });
    it.each([
      ['a corrupt step state, whatever else holds', { state, corrupt, stop: cancelled }, 'corrupt'],
      ['no step state: the policy starts', { state: null, corrupt: null, stop: null }, 'fresh'],
      ['no step state and stopped: answer at once', { state: null, corrupt: null, stop: cancelled }, 'answering'],
      ['children out: read the round', { state, corrupt: null, stop: null }, 'collecting'],
      ['children out and stopped: read what settled', { state, corrupt: null, stop: cancelled }, 'stopping'],
    ] as const)('%s', (_, opening, kind) => {
      expect(openingPhase(opening).kind).toBe(kind);
    });

    it('a job stopped before it ran answers with the stop and no children', () => {
      expect(openingPhase({ state: null, corrupt: null, stop: cancelled })).toMatchObject({ kind: 'answering', state: null, received: [], draft: { status: 'cancelled', error_type: 'cancelled' } });
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

    it('the Fleet may not delegate, and no tier may delegate nothing', () => {
      const fleet = transition(PHASES.fresh, EVENTS.decided, { ...DISPATCHER, tier: 'SPECIALIZED_FLEET' });
      expect(fleet).toMatchObject({ kind: 'answering', draft: { status: 'failed', error_type: 'delegation_refused', recoverable: false } });
      const empty = transition(PHASES.fresh, { type: 'decided', step: { ...delegate, children: [] } }, DISPATCHER);
      expect(empty).toMatchObject({ kind: 'answering', draft: { status: 'failed', error_type: 'delegation_refused' } });
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
      const permanent = TierflowError.permanent('no such repository', { code: 'not_found' });
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
});
