import { describe, expect, it } from 'vitest';
import { reviseOrStop } from './revise-or-stop.js';

const usage = (tokens_in: number, tokens_out: number, cost_usd: number, llm_calls: number) => ({ tokens_in, tokens_out, cost_usd, llm_calls });
const nothing = usage(0, 0, 0, 0);

describe('reviseOrStop', () => {
  it('revises with no history and no budget, or with nothing known of the round', () => {
    expect(reviseOrStop({ stats: null, standing: null, round: null })).toEqual({ revise: true, reason: null });
    expect(reviseOrStop({ stats: null, standing: { limits: { max_tokens: 10 }, committed: usage(5, 5, 0, 1) }, round: null })).toEqual({ revise: true, reason: null });
  });

  it('stops when revisions of the task type rarely succeed, with enough of them on record', () => {
    expect(reviseOrStop({ stats: { samples: 6, succeeded: 0.3 }, standing: null, round: null })).toEqual({
      revise: false,
      reason: 'revisions of this task type rarely succeed: 5% of 6 recent revisions ended in success, under 10%',
    });
    // Too few to judge, or successful enough.
    expect(reviseOrStop({ stats: { samples: 4, succeeded: 0 }, standing: null, round: null }).revise).toBe(true);
    expect(reviseOrStop({ stats: { samples: 10, succeeded: 2 }, standing: null, round: null }).revise).toBe(true);
  });

  it.each([
    ['cost', { max_cost_usd: 0.1 }, usage(0, 0, 0.08, 1), usage(0, 0, 0.05, 1), 'the budget left ($0.0200) cannot pay for another round (about $0.0500)'],
    ['tokens', { max_tokens: 1_000 }, usage(500, 300, 0, 1), usage(150, 100, 0, 1), 'the budget left (200 tokens) cannot pay for another round (about 250 tokens)'],
    ['model calls', { max_llm_calls: 4 }, usage(0, 0, 0, 3), usage(0, 0, 0, 2), 'the budget left (1 model call) cannot pay for another round (about 2 model calls)'],
  ])('stops when the budget left cannot pay for another round like the last: %s', (_name, limits, committed, round, reason) => {
    expect(reviseOrStop({ stats: null, standing: { limits, committed }, round })).toEqual({ revise: false, reason });
    expect(reviseOrStop({ stats: null, standing: { limits, committed: nothing }, round }).revise).toBe(true);
  });

  it('names every reason', () => {
    const verdict = reviseOrStop({ stats: { samples: 5, succeeded: 0 }, standing: { limits: { max_llm_calls: 1 }, committed: usage(0, 0, 0, 1) }, round: usage(0, 0, 0, 1) });
    expect(verdict.revise).toBe(false);
    expect(verdict.reason?.split('; ')).toHaveLength(2);
  });
});
