import { describe, expect, it } from 'vitest';
import { readTally, tallyBelow, tallySentence, type SubtaskTally, type TalliedAnswer } from './subtask-tally.js';

const leaf = (status: string): TalliedAnswer => ({ status, resources_used: {} });
// A Dispatcher that answered for the leaves below it: its own status says nothing of them.
const dispatcher = (status: string, delegated: number, succeeded: number): TalliedAnswer => ({ status, resources_used: { subtasks: { delegated, succeeded } } });

describe('the subtasks a stopped parent counts', () => {
  it.each<[string, SubtaskTally | null, TalliedAnswer[], number, string]>([
    ['nothing sent', null, [], 0, ''],
    ['a Dispatcher over its leaves: 2 of 4 succeeded', null, [leaf('success'), leaf('timeout'), leaf('success'), leaf('cancelled')], 0, '; 2 of 4 delegated subtasks had succeeded'],
    // The case the tree contradicted: an Architect whose one Dispatcher timed out with 2 of its 4 leaves done.
    ['an Architect whose Dispatcher stopped after 2 of 4 leaves', null, [dispatcher('timeout', 4, 2)], 0, '; 2 of 4 delegated subtasks had succeeded'],
    ['a Monitor above that Architect', null, [dispatcher('timeout', 4, 2)], 0, '; 2 of 4 delegated subtasks had succeeded'],
    [
      'across rounds: a revision after a first round of 3 (1 succeeded), 2 more, 1 succeeded',
      { delegated: 3, succeeded: 1 },
      [leaf('success'), leaf('failed')],
      0,
      '; 2 of 5 delegated subtasks had succeeded',
    ],
    ['children that never answered count as not succeeded', null, [leaf('success')], 2, '; 1 of 3 delegated subtasks had succeeded'],
    ['a child that failed before it delegated counts as one', null, [{ status: 'failed', resources_used: {} }, dispatcher('partial', 2, 1)], 0, '; 1 of 3 delegated subtasks had succeeded'],
    ['one subtask', null, [leaf('cancelled')], 0, '; 0 of 1 delegated subtask had succeeded'],
  ])('%s', (_name, earlier, answered, unanswered, sentence) => {
    expect(tallySentence(tallyBelow(earlier, answered, unanswered))).toBe(sentence);
  });

  it.each([
    [
      { delegated: 4, succeeded: 2 },
      { delegated: 4, succeeded: 2 },
    ],
    [{ delegated: 1, succeeded: 2 }, null],
    [{ delegated: -1, succeeded: 0 }, null],
    [{ delegated: 1.5, succeeded: 0 }, null],
    ['4 of 2', null],
    [null, null],
  ])('reads %j as %j, trusting nothing', (value, tally) => {
    expect(readTally(value)).toEqual(tally);
  });

  it('counts a child whose reported tally makes no sense as itself', () => {
    expect(tallyBelow(null, [{ status: 'success', resources_used: { subtasks: { delegated: 1, succeeded: 9 } } }])).toEqual({ delegated: 1, succeeded: 1 });
  });
});
