import { describe, expect, it } from 'vitest';
import type { Step } from '../policy/handler.js';
import { delegationTo, runNode, settle } from '../testing/index.js';
import { memoryKeySet } from '../testing/keys.js';
import { blockersBehind, completeUnblocks, withBlockers, withUnblockNotes } from './blocked.js';
import { readUnblocks, unblockRecord } from './blocked-records.js';
import { withBlockedWait } from './run-blocked.js';
import { reportedUnder } from './unblock-work.js';
import { pausedMs } from './questions.js';

const dispatcher = delegationTo('ROUTING_DISPATCHER', 'r.0-0.0-0', { task_type: 'decompose', objective: 'split' });
const two: Extract<Step, { kind: 'delegate' }> = {
  kind: 'delegate',
  strategy: 'all_success',
  children: [
    { task_type: 'code', objective: 'a' },
    { task_type: 'code', objective: 'b' },
  ],
};
const round = settle(dispatcher, 'ROUTING_DISPATCHER', two, 0, (_, index) =>
  index === 0 ? { status: 'success', summary: 'a done', confidence: 0.9 } : { status: 'blocked', summary: 'waits', confidence: 0.5, error_type: 'blocked', error_detail: ' Waiting for the API key ' },
);
const own = { tier: 'ROUTING_DISPATCHER' as const, outcomeId: 'r.0-0.0-0.out' };
const draft = { status: 'blocked' as const, summary: '1/2 succeeded', confidence: 0.5, error_detail: 'Waiting for the API key' };

describe('blockersBehind', () => {
  it('names each blocker by the outcome of the child that reported it', () => {
    expect(blockersBehind(draft, round.children, own)).toEqual([{ id: 'r.0-0.0-0.0-1.out', blocker: 'Waiting for the API key', tier: 'SPECIALIZED_FLEET' }]);
  });

  it('passes up the blockers a blocked child carried', () => {
    const carried = [{ id: 'x.out', blocker: 'Waiting for a review', tier: 'SPECIALIZED_FLEET' as const }];
    const architect = settle(delegationTo('ABSTRACT_ARCHITECT', 'r.0-0', { task_type: 'solve', objective: 'o' }), 'ABSTRACT_ARCHITECT', { ...two, children: [two.children[0]!] }, 0, () => ({
      status: 'blocked',
      summary: 'waits',
      confidence: 0.5,
      blockers: carried,
    }));
    expect(blockersBehind(draft, architect.children, own)).toEqual(carried);
  });

  it("is the job's own blocker when no child reported one (a leaf)", () => {
    expect(blockersBehind(draft, [], own)).toEqual([{ id: own.outcomeId, blocker: 'Waiting for the API key', tier: 'ROUTING_DISPATCHER' }]);
  });

  it('only touches blocked drafts', () => {
    const success = { status: 'success' as const, summary: 'ok', confidence: 1 };
    expect(withBlockers(success, round.children, own)).toBe(success);
    expect(withBlockers(draft, round.children, own).blockers).toHaveLength(1);
  });
});

describe('unblock notes', () => {
  const note = { blocker_id: 'q.out', blocker: 'Waiting for the API key', note: 'key issued' };

  it('are added to a request once, after those it carries', () => {
    const earlier = { blocker_id: 'p.out', blocker: 'Waiting for a review', note: 'reviewed' };
    const request = { task_type: 'code', objective: 'a', task_data: { sim: {}, unblocked: [earlier] } };
    const added = withUnblockNotes(request, [note]);
    expect(added.task_data).toEqual({ sim: {}, unblocked: [earlier, note] });
    expect(withUnblockNotes(added, [note])).toBe(added);
    expect(withUnblockNotes(request, [])).toBe(request);
  });

  it('complete a wait only when every blocker is lifted', () => {
    const wait = { blockers: [{ id: 'q.out', blocker: 'Waiting for the API key', tier: 'SPECIALIZED_FLEET' as const }] };
    expect(completeUnblocks(wait, new Map())).toBeNull();
    expect(completeUnblocks(wait, new Map([['q.out', 'key issued']]))).toEqual([note]);
  });

  it('a blocked wait pauses the deadline as a wait for answers does', () => {
    const awaiting = { kind: 'blocked' as const, asked_at: 4_000, until: 9_000, blockers: [], draft: { status: 'blocked' as const, summary: '' } };
    expect(pausedMs({ paused_ms: 300, awaiting }, 5_000)).toBe(1_300);
  });

  it('name the blockers at or below a node', () => {
    expect(reportedUnder({ id: 'r.0-0.0-0.0-1.out' }, 'r.0-0.0-0.0-1')).toBe(true);
    expect(reportedUnder({ id: 'r.0-0.0-0.0-1.out' }, 'r.0-0.0-0.0-1.out')).toBe(true);
    expect(reportedUnder({ id: 'r.0-0.0-0.0-1.out' }, 'r.0-0')).toBe(true);
    expect(reportedUnder({ id: 'r.0-0.0-0.0-1.out' }, 'r.0-0.0-0.0-0')).toBe(false);
    expect(reportedUnder({ id: 'r.0-0.0-0.0-10.out' }, 'r.0-0.0-0.0-1')).toBe(false);
  });
});

describe('unblock records', () => {
  const keys = memoryKeySet();
  const client = keys.signer('client');

  it('are read when they name their blocker, came after it was reported and, when signing, carry the client’s signature', () => {
    const hash = {
      'b1.out': unblockRecord('b1.out', 'key issued', 2_000, client),
      'b2.out': unblockRecord('b3.out', 'moved', 2_000, client),
      'b4.out': unblockRecord('b4.out', 'stale', 500, client),
      'b5.out': unblockRecord('b5.out', 'forged', 2_000, keys.signer('fleet')),
      'b6.out': '{not json',
    };
    const read = readUnblocks(hash, keys.signing, 1_000);
    expect([...read.notes]).toEqual([['b1.out', 'key issued']]);
    expect(read.lastAt).toBe(2_000);
    expect(read.ignored.map((entry) => entry.field)).toEqual(['b2.out', 'b4.out', 'b5.out', 'b6.out']);
  });
});

describe('withBlockedWait', () => {
  const wait = {
    since: '2026-11-25T10:00:00.000Z',
    until: '2026-11-26T10:00:00.000Z',
    blockers: [{ id: 'q.out', blocker: 'Waiting for the API key', tier: 'SPECIALIZED_FLEET' as const, unblocked: null }],
  };

  it('shows a blocked run as blocked with its blockers', () => {
    const root = runNode('r', { tier: 'PROGRESS_MONITOR', status: 'retrying', source: 'queue', queue_state: 'delayed' });
    expect(withBlockedWait(root, wait)).toMatchObject({ status: 'blocked', blockers: wait.blockers, blocked_since: wait.since, waiting_until: wait.until });
    expect(withBlockedWait(root, null)).toBe(root);
  });

  it('believes an outcome over a view left behind', () => {
    const done = runNode('r', { tier: 'PROGRESS_MONITOR', status: 'success', source: 'outcome' });
    expect(withBlockedWait(done, wait)).toBe(done);
  });
});
