import type { OutcomeStatus } from '@tierflow/protocol';
import type { Plan } from '@tierflow/runtime';
import type { KeptChild } from './architect-memo.js';
import { describe, expect, it } from 'vitest';
import type { ChildOutcomeEntry } from './child-outcomes.js';
import { decideArchitect, mapToPlan, type ArchitectDecision, type DispatcherVerdict } from './decide.js';

function entries(...statuses: OutcomeStatus[]): ChildOutcomeEntry[] {
  return statuses.map((status, i) => ({ id: `d.0-${i}`, status, specialist: `s${i + 1}`, confidence: status === 'success' ? 0.9 : 0.1, subtask_index: i + 1 }));
}
const partialMajorityFailed: Omit<DispatcherVerdict, 'childOutcomes'> = { status: 'partial', error_type: 'majority_failed', recoverable: true };
const fresh = { revisions: 0, delegated: [1, 2, 3] };

describe('decideArchitect', () => {
  it.each<[string, DispatcherVerdict, { revisions: number; delegated: number[] }, number, ArchitectDecision]>([
    ['success is reported', { status: 'success', error_type: null, recoverable: null, childOutcomes: entries('success') }, fresh, 1, { kind: 'report', reaggregate: false }],
    ['a clarification goes up', { status: 'needs_clarification', error_type: 'ambiguous_request', recoverable: true, childOutcomes: null }, fresh, 1, { kind: 'pass_up' }],
    ['blocked work goes up, never revised', { status: 'blocked', error_type: 'blocked', recoverable: true, childOutcomes: entries('blocked') }, fresh, 1, { kind: 'pass_up' }],
    [
      'a clarification goes up even with revisions left after one',
      { status: 'needs_clarification', error_type: 'ambiguous_request', recoverable: true, childOutcomes: null },
      { revisions: 1, delegated: [2] },
      3,
      { kind: 'pass_up' },
    ],
    [
      'majority failed: revise only the failed subtasks',
      { ...partialMajorityFailed, childOutcomes: entries('failed', 'success', 'timeout') },
      fresh,
      1,
      { kind: 'revise', subtasks: [1, 3], kept: [{ message_id: 'd.0-1', specialist: 's2', status: 'success', confidence: 0.9, subtask_index: 2 }] },
    ],
    [
      'partial with the majority succeeded is reported',
      { status: 'partial', error_type: 'partial_completion', recoverable: true, childOutcomes: entries('success', 'success', 'failed') },
      fresh,
      1,
      { kind: 'report', reaggregate: false },
    ],
    [
      'a recoverable failure: revise everything that failed',
      { status: 'failed', error_type: 'all_failed', recoverable: true, childOutcomes: entries('failed', 'failed', 'failed') },
      fresh,
      1,
      { kind: 'revise', subtasks: [1, 2, 3], kept: [] },
    ],
    ['an unrecoverable failure is reported', { status: 'failed', error_type: 'all_failed', recoverable: false, childOutcomes: entries('failed') }, fresh, 1, { kind: 'report', reaggregate: false }],
    ['a timeout is reported', { status: 'timeout', error_type: 'timeout', recoverable: true, childOutcomes: null }, fresh, 1, { kind: 'report', reaggregate: false }],
    ['maxRevisions 0 never revises', { ...partialMajorityFailed, childOutcomes: entries('failed', 'success', 'failed') }, fresh, 0, { kind: 'report', reaggregate: false }],
    [
      'after maxRevisions: report, re-aggregated',
      { ...partialMajorityFailed, childOutcomes: entries('failed', 'success') },
      { revisions: 1, delegated: [1, 3] },
      1,
      { kind: 'report', reaggregate: true },
    ],
    [
      'a second revision maps back to the original plan',
      { ...partialMajorityFailed, childOutcomes: entries('success', 'failed', 'failed') },
      { revisions: 1, delegated: [2, 4, 5] },
      2,
      { kind: 'revise', subtasks: [4, 5], kept: [{ message_id: 'd.0-0', specialist: 's1', status: 'success', confidence: 0.9, subtask_index: 2 }] },
    ],
    [
      'no child outcomes: revise all the delegated subtasks',
      { status: 'failed', error_type: 'job_failed', recoverable: true, childOutcomes: null },
      { revisions: 0, delegated: [3, 1] },
      1,
      { kind: 'revise', subtasks: [1, 3], kept: [] },
    ],
    [
      'an unknown subtask index counts as no child outcomes',
      { status: 'failed', error_type: 'all_failed', recoverable: true, childOutcomes: entries('failed', 'failed') },
      { revisions: 0, delegated: [1] },
      1,
      { kind: 'revise', subtasks: [1], kept: [] },
    ],
  ])('%s', (_name, verdict, memo, maxRevisions, expected) => {
    expect(decideArchitect(verdict, { plan: null, ...memo }, maxRevisions)).toEqual(expected);
  });
});

describe('decideArchitect over a plan with dependencies', () => {
  // 1 drafts, 2 reviews the draft, 3 summarises the review; 4 stands alone.
  const plan: Plan = {
    strategy: 'all_success',
    subtasks: [{ objective: 'draft' }, { objective: 'review', depends_on: [1] }, { objective: 'summarise', depends_on: [2] }, { objective: 'figures' }],
  };
  const kept = (index: number): KeptChild => ({ message_id: `d.0-${index - 1}`, specialist: `s${index}`, status: 'success', confidence: 0.9, subtask_index: index });

  it.each<[string, OutcomeStatus[], number[], number[]]>([
    ['the head failed: the chain again, the rest kept', ['failed', 'failed', 'failed', 'success'], [1, 2, 3], [4]],
    ['the middle failed: what it depends on goes again too, and is not kept', ['success', 'failed', 'failed', 'success'], [1, 2, 3], [4]],
    ['the last failed: the whole chain above it again', ['success', 'success', 'failed', 'failed'], [1, 2, 3, 4], []],
    ['only the independent one failed: the chain is kept', ['success', 'success', 'success', 'failed'], [4], [1, 2, 3]],
  ])('%s', (_name, statuses, subtasks, keptIndices) => {
    const verdict: DispatcherVerdict = { status: 'failed', error_type: 'all_failed', recoverable: true, childOutcomes: entries(...statuses) };
    expect(decideArchitect(verdict, { revisions: 0, delegated: [1, 2, 3, 4], plan }, 1)).toEqual({ kind: 'revise', subtasks, kept: keptIndices.map(kept) });
  });

  it('closes the delegated subtasks over their dependencies when the outcome does not say which failed', () => {
    const verdict: DispatcherVerdict = { status: 'failed', error_type: 'job_failed', recoverable: true, childOutcomes: null };
    expect(decideArchitect(verdict, { revisions: 0, delegated: [3], plan }, 1)).toEqual({ kind: 'revise', subtasks: [1, 2, 3], kept: [] });
  });
});

describe('mapToPlan', () => {
  it('maps each subtask_index through the delegated list', () => {
    expect(mapToPlan(entries('success', 'failed'), [4, 7])?.map((entry) => entry.subtask_index)).toEqual([4, 7]);
  });
});
