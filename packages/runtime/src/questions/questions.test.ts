import { describe, expect, it } from 'vitest';
import type { Step } from '../policy/handler.js';
import { delegationTo, settle } from '../testing/index.js';
import { memoryKeySet } from '../testing/keys.js';
import { answerRecord, readAnswers } from './question-records.js';
import { completeAnswers, pausedMs, questionsBehind, withClarifications, withQuestions } from './questions.js';
import { withWait } from './run-questions.js';
import { runNode } from '../testing/index.js';

const dispatcher = delegationTo('ROUTING_DISPATCHER', 'r.0-0.0-0', { task_type: 'decompose', objective: 'split' });
const three: Extract<Step, { kind: 'delegate' }> = {
  kind: 'delegate',
  strategy: 'all_success',
  children: [
    { task_type: 'code', objective: 'a' },
    { task_type: 'code', objective: 'b' },
    { task_type: 'code', objective: 'c' },
  ],
};
const round = settle(dispatcher, 'ROUTING_DISPATCHER', three, 0, (_, index) =>
  index === 1
    ? { status: 'success', summary: 'b done', confidence: 0.9 }
    : { status: 'needs_clarification', summary: 'asks', confidence: 0.5, error_type: 'ambiguous_request', error_detail: ` Which ${index === 0 ? 'region' : 'year'}? ` },
);
const own = { tier: 'ROUTING_DISPATCHER' as const, outcomeId: 'r.0-0.0-0.out' };
const aggregate = { status: 'needs_clarification' as const, summary: '1/3 succeeded', confidence: 0.5, error_detail: 'Which region? | Which year?' };

describe('questionsBehind', () => {
  it("names each question by the outcome of the child that asked, in the round's order", () => {
    expect(questionsBehind(aggregate, round.children, own)).toEqual([
      { id: 'r.0-0.0-0.0-0.out', question: 'Which region?', tier: 'SPECIALIZED_FLEET' },
      { id: 'r.0-0.0-0.0-2.out', question: 'Which year?', tier: 'SPECIALIZED_FLEET' },
    ]);
  });

  it('passes up the questions an asking child carried, not its joined text', () => {
    const carried = [{ id: 'x.out', question: 'Which region?', tier: 'SPECIALIZED_FLEET' as const }];
    const architect = settle(delegationTo('ABSTRACT_ARCHITECT', 'r.0-0', { task_type: 'solve', objective: 'o' }), 'ABSTRACT_ARCHITECT', { ...three, children: [three.children[0]!] }, 0, () => ({
      status: 'needs_clarification',
      summary: 'asks',
      confidence: 0.5,
      error_detail: 'Which region? | Which year?',
      questions: carried,
    }));
    expect(questionsBehind(aggregate, architect.children, own)).toEqual(carried);
  });

  it("is the job's own question when no child asked (a leaf, or a tier that asks itself)", () => {
    expect(questionsBehind({ ...aggregate, error_detail: null }, [], own)).toEqual([{ id: own.outcomeId, question: '1/3 succeeded', tier: 'ROUTING_DISPATCHER' }]);
  });

  it('only touches needs_clarification drafts', () => {
    const success = { status: 'success' as const, summary: 'ok', confidence: 1 };
    expect(withQuestions(success, round.children, own)).toBe(success);
    expect(withQuestions(aggregate, round.children, own).questions).toHaveLength(2);
  });
});

describe('clarifications', () => {
  const answer = { question_id: 'q.out', question: 'Which region?', answer: 'eu-west' };

  it('are added to a request once, after those it carries', () => {
    const earlier = { question_id: 'p.out', question: 'Which year?', answer: '2026' };
    const request = { task_type: 'code', objective: 'a', task_data: { sim: {}, clarifications: [earlier] } };
    const added = withClarifications(request, [answer]);
    expect(added.task_data).toEqual({ sim: {}, clarifications: [earlier, answer] });
    expect(withClarifications(added, [answer])).toBe(added);
    expect(withClarifications(request, [])).toBe(request);
  });

  it('complete a wait only when every question has an answer', () => {
    const awaiting = { questions: [{ id: 'q.out', question: 'Which region?', tier: 'SPECIALIZED_FLEET' as const }] };
    expect(completeAnswers(awaiting, new Map())).toBeNull();
    expect(completeAnswers(awaiting, new Map([['q.out', 'eu-west']]))).toEqual([answer]);
  });

  it('time waited is kept over every wait, and the open one counts to now', () => {
    expect(pausedMs(null, 5_000)).toBe(0);
    expect(pausedMs({ paused_ms: 300 }, 5_000)).toBe(300);
    const awaiting = { asked_at: 4_000, until: 9_000, questions: [], draft: { status: 'needs_clarification' as const, summary: '' } };
    expect(pausedMs({ paused_ms: 300, awaiting }, 5_000)).toBe(1_300);
  });
});

describe('answer records', () => {
  const keys = memoryKeySet();
  const client = keys.signer('client');

  it('are read when they name their question, came after it was asked and, when signing, carry the client’s signature', () => {
    const hash = {
      'q1.out': answerRecord('q1.out', 'eu-west', 2_000, client),
      'q2.out': answerRecord('q3.out', 'moved', 2_000, client),
      'q4.out': answerRecord('q4.out', 'stale', 500, client),
      'q5.out': answerRecord('q5.out', 'forged', 2_000, keys.signer('fleet')),
      'q6.out': answerRecord('q6.out', 'unsigned', 2_000, null),
      'q7.out': '{not json',
    };
    const read = readAnswers(hash, keys.signing, 1_000);
    expect([...read.answers]).toEqual([['q1.out', 'eu-west']]);
    expect(read.ignored.map((entry) => entry.field)).toEqual(['q2.out', 'q4.out', 'q5.out', 'q6.out', 'q7.out']);
    // Without signing, only the shape, the question and the time are checked.
    expect([...readAnswers(hash, null, 1_000).answers.keys()]).toEqual(['q1.out', 'q5.out', 'q6.out']);
  });
});

describe('withWait', () => {
  const wait = { asked_at: '2026-11-25T10:00:00.000Z', until: '2026-11-26T10:00:00.000Z', questions: [{ id: 'q.out', question: 'Which region?', tier: 'SPECIALIZED_FLEET' as const, answer: null }] };

  it('shows a waiting run as input_required with its questions', () => {
    const root = runNode('r', { tier: 'PROGRESS_MONITOR', status: 'retrying', source: 'queue', queue_state: 'delayed' });
    expect(withWait(root, wait)).toMatchObject({ status: 'input_required', questions: wait.questions, waiting_until: wait.until });
    expect(withWait(root, null)).toBe(root);
  });

  it('believes an outcome over a view left behind', () => {
    const done = runNode('r', { tier: 'PROGRESS_MONITOR', status: 'success', source: 'outcome' });
    expect(withWait(done, wait)).toBe(done);
  });
});
