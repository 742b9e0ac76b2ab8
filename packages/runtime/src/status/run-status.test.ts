import { OUTCOME_STATUSES } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { parseRunStatus, QUEUE_STATES, queueStatesOf, RUN_STATUSES, runStatus } from './run-status.js';

/** The table of docs/statuses.md: each queue state's word for a job with no outcome, not waiting for a person. */
const EXPECTED: Record<(typeof QUEUE_STATES)[number], string> = {
  waiting: 'queued',
  wait: 'queued',
  paused: 'queued',
  prioritized: 'queued',
  delayed: 'retrying',
  active: 'running',
  'waiting-children': 'waiting_for_children',
  completed: 'failed',
  failed: 'failed',
  unknown: 'missing',
  unreadable: 'unreadable',
};

describe('runStatus', () => {
  it('gives every queue state its word when there is no outcome', () => {
    for (const state of QUEUE_STATES) expect([state, runStatus({ queueState: state, outcome: null })]).toEqual([state, EXPECTED[state]]);
    expect(runStatus({ queueState: null, outcome: null })).toBe('missing');
    expect(runStatus({ queueState: 'something-new', outcome: null })).toBe('missing');
  });

  it("gives the outcome's status whatever the queue state, and whether or not it waited for a person", () => {
    for (const state of [...QUEUE_STATES, null])
      for (const outcome of OUTCOME_STATUSES) for (const waitsForPerson of [false, true]) expect(runStatus({ queueState: state, outcome, waitsForPerson })).toBe(outcome);
  });

  it('says input_required for a job with no outcome waiting for a person, in any queue state', () => {
    for (const state of [...QUEUE_STATES, null]) expect(runStatus({ queueState: state, outcome: null, waitsForPerson: true })).toBe('input_required');
  });

  it('says blocked for a job with no outcome waiting on blocked work; an outcome, and a person, go first', () => {
    expect(runStatus({ queueState: 'delayed', outcome: null, blocked: true })).toBe('blocked');
    expect(runStatus({ queueState: 'delayed', outcome: 'success', blocked: true })).toBe('success');
    expect(runStatus({ queueState: 'delayed', outcome: null, waitsForPerson: true, blocked: true })).toBe('input_required');
  });

  it('says deferred for a delayed job whose pass left its worker to wait, and only for a delayed one', () => {
    expect(runStatus({ queueState: 'delayed', outcome: null, deferred: true })).toBe('deferred');
    expect(runStatus({ queueState: 'delayed', outcome: null, deferred: false })).toBe('retrying');
    // Taken up again (a stale mark), or asking a person, or answered: those win.
    expect(runStatus({ queueState: 'active', outcome: null, deferred: true })).toBe('running');
    expect(runStatus({ queueState: 'delayed', outcome: null, waitsForPerson: true, deferred: true })).toBe('input_required');
    expect(runStatus({ queueState: 'delayed', outcome: 'cancelled', deferred: true })).toBe('cancelled');
  });

  it('never gives a BullMQ state as a status', () => {
    const internal = ['waiting', 'prioritized', 'delayed', 'active', 'waiting-children', 'completed', 'paused', 'unknown'];
    for (const state of [...QUEUE_STATES, null]) expect(internal).not.toContain(runStatus({ queueState: state, outcome: null }));
    expect(RUN_STATUSES.filter((status) => internal.includes(status))).toEqual([]);
  });
});

describe('queueStatesOf', () => {
  it('names every queue state a status comes from, as runStatus maps them', () => {
    for (const state of QUEUE_STATES) {
      const status = runStatus({ queueState: state, outcome: null });
      if (status !== 'missing') expect(queueStatesOf(status)).toContain(state);
    }
    expect(queueStatesOf('queued')).toEqual(['waiting', 'wait', 'paused', 'prioritized']);
    expect(queueStatesOf('waiting_for_children')).toEqual(['waiting-children']);
    expect(queueStatesOf('input_required')).toEqual(['delayed']);
    expect(queueStatesOf('deferred')).toEqual(['delayed']);
    expect(queueStatesOf('blocked')).toEqual(['completed', 'delayed']);
    expect(queueStatesOf('success')).toEqual(['completed']);
    expect(queueStatesOf('failed')).toEqual(['completed', 'failed']);
  });
});

describe('parseRunStatus', () => {
  it('reads the words as a person types them and refuses the others', () => {
    expect(parseRunStatus('waiting for children')).toBe('waiting_for_children');
    expect(parseRunStatus(' Input-Required ')).toBe('input_required');
    expect(parseRunStatus('success')).toBe('success');
    expect(parseRunStatus('prioritized')).toBeNull();
    expect(parseRunStatus('waiting')).toBeNull();
  });
});
