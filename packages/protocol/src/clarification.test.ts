import { describe, expect, it } from 'vitest';
import { answerTo, clarificationsOf } from './clarification.js';

describe('clarifications in task_data', () => {
  const region = { question_id: 'r.0-0.out', question: 'Which region?', answer: 'eu-west' };

  it('are read leniently: none when absent or of another shape', () => {
    expect(clarificationsOf({})).toEqual([]);
    expect(clarificationsOf({ clarifications: 'eu-west' })).toEqual([]);
    expect(clarificationsOf({ clarifications: [{ question: 'Which region?' }] })).toEqual([]);
    expect(clarificationsOf({ clarifications: [region] })).toEqual([region]);
  });

  it('answer a question by its text, the latest answer first', () => {
    const later = { ...region, question_id: 'r.1-0.out', answer: 'us-east' };
    expect(answerTo({ clarifications: [region, later] }, ' Which region? ')).toBe('us-east');
    expect(answerTo({ clarifications: [region] }, 'Which year?')).toBeNull();
  });
});
