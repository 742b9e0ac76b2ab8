import { delegationPayloadSchema } from '@tierflow/protocol';
import { buildOutcome } from '@tierflow/runtime/policy';
import { type SettledChild } from '@tierflow/runtime';
import { describe, expect, it } from 'vitest';
import { initialMemo, readMemo, recordRound, type DispatchMemo } from './dispatch-memo.js';
import { FIXED_NOW, type OutcomeReply } from '@tierflow/runtime/testing';

function child(id: string, subtaskIndex: number | undefined, specialist: string, reply: OutcomeReply): SettledChild {
  const request = delegationPayloadSchema.parse({
    task_type: 'general',
    objective: 'o',
    specialist_hint: specialist,
    task_data: subtaskIndex === undefined ? {} : { subtask_index: subtaskIndex },
  });
  return { id, index: 0, request, outcome: buildOutcome('SPECIALIZED_FLEET', id, reply, 5, FIXED_NOW) };
}

const ok = (confidence: number): OutcomeReply => ({ status: 'success', summary: 'done', confidence });
const unavailable: OutcomeReply = {
  status: 'failed',
  summary: 'no such specialist',
  confidence: 0,
  error_type: 'specialist_unavailable',
  error_detail: 'gpu is not loaded',
  recoverable: true,
};

const memo: DispatchMemo = initialMemo('all_success', [
  { specialist: 'a', alternates: [] },
  { specialist: 'gpu', alternates: ['sim'] },
  { specialist: 'c', alternates: [] },
]);

describe('recordRound', () => {
  it('records each latest result and the completion order across rounds', () => {
    const first = recordRound(memo, [child('r.0-2', 3, 'c', ok(0.7)), child('r.0-1', 2, 'gpu', unavailable), child('r.0-0', 1, 'a', ok(0.9))]);
    expect(first.completion).toEqual([3, 2, 1]);
    expect(first.subtasks[1]?.result).toMatchObject({ message_id: 'r.0-1', specialist: 'gpu', status: 'failed', error_type: 'specialist_unavailable' });

    const second = recordRound(first, [child('r.1-0', 2, 'sim', ok(0.8))]);
    expect(second.completion).toEqual([3, 1, 2]);
    expect(second.subtasks[1]?.result).toMatchObject({ message_id: 'r.1-0', specialist: 'sim', status: 'success', confidence: 0.8, error_type: null });
    expect(second.subtasks[0]?.result?.message_id).toBe('r.0-0');
    // Counted for a revision: subtask 2 went to gpu, then to sim.
    expect(second.subtasks.map(({ attempts, tried }) => ({ attempts, tried }))).toEqual([
      { attempts: 1, tried: ['a'] },
      { attempts: 2, tried: ['gpu', 'sim'] },
      { attempts: 1, tried: ['c'] },
    ]);
    expect(recordRound(second, [child('r.2-0', 2, 'sim', ok(0.8))]).subtasks[1]).toMatchObject({ attempts: 3, tried: ['gpu', 'sim'] });
  });

  it.each<[string, SettledChild, string]>([
    ['no subtask_index', child('r.0-0', undefined, 'a', ok(1)), 'carries no task_data.subtask_index'],
    ['a subtask the plan lacks', child('r.0-0', 9, 'a', ok(1)), 'names subtask 9'],
  ])('refuses a child with %s', (_name, settled, message) => {
    expect(() => recordRound(memo, [settled])).toThrow(expect.objectContaining({ code: 'invalid_round', message: expect.stringContaining(message) as unknown }));
  });
});

describe('readMemo', () => {
  it('reads back what went through JSON', () => {
    expect(readMemo(JSON.parse(JSON.stringify(memo)) as Record<string, unknown>)).toEqual(memo);
  });

  it('reads a memo written before results kept their summary and evidence grade', () => {
    const recorded = recordRound(memo, [child('r.0-0', 1, 'a', ok(0.9))]);
    const { summary: _summary, evidence_grade: _grade, ...older } = recorded.subtasks[0]!.result!;
    const stored = { ...recorded, subtasks: [{ ...recorded.subtasks[0]!, result: older }, ...recorded.subtasks.slice(1)] };
    expect(recorded.subtasks[0]?.result).toMatchObject({ summary: 'done', evidence_grade: null });
    expect(readMemo(JSON.parse(JSON.stringify(stored)) as Record<string, unknown>).subtasks[0]?.result).toMatchObject({ summary: '', evidence_grade: null });
  });

  it('refuses a memo it did not write', () => {
    expect(() => readMemo({ revisions: 0 })).toThrow(expect.objectContaining({ code: 'invalid_memo' }));
  });
});
