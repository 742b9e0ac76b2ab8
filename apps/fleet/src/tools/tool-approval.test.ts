import { describe, expect, it } from 'vitest';
import { approvalOf, approvalQuestion, isApprovalQuestion } from './tool-approval.js';

const args = { path: 'notes.txt', text: 'hi' };
const answered = (answer: string) => [{ question_id: 'q', question: approvalQuestion('write_note', args), answer }];

describe('approving a tool call', () => {
  it('asks the same question for the same call whatever the order of its arguments', () => {
    expect(approvalQuestion('write_note', { text: 'hi', path: 'notes.txt' })).toBe(approvalQuestion('write_note', args));
    expect(isApprovalQuestion(approvalQuestion('write_note', args))).toBe(true);
    expect(isApprovalQuestion('Which region?')).toBe(false);
  });

  it.each([
    ['approve', { kind: 'approve', args }],
    ['Yes', { kind: 'approve', args }],
    ['deny', { kind: 'deny', reason: null }],
    ['deny: not that file', { kind: 'deny', reason: 'not that file' }],
    ['{"path":"other.txt","text":"hi"}', { kind: 'approve', args: { path: 'other.txt', text: 'hi' } }],
    ['only on Mondays', { kind: 'deny', reason: 'only on Mondays' }],
    ['{not json', { kind: 'deny', reason: '{not json' }],
  ])('reads %j', (answer, approval) => {
    expect(approvalOf('write_note', args, answered(answer))).toEqual(approval);
  });

  it('is pending while no answer names its question', () => {
    expect(approvalOf('write_note', args, undefined)).toEqual({ kind: 'pending', question: approvalQuestion('write_note', args) });
    expect(approvalOf('write_note', { ...args, text: 'other' }, answered('approve'))).toMatchObject({ kind: 'pending' });
    expect(approvalOf('write_note', args, [{ question: approvalQuestion('write_note', args), answer: 3 }, 'junk', null])).toMatchObject({ kind: 'pending' });
  });
});
