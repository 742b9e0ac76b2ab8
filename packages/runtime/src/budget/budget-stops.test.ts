import { describe, expect, it } from 'vitest';
import { signRecord } from '../security/signing.js';
import type { Signer } from '../security/signing-keys.js';
import { memoryKeySet } from '../testing/keys.js';
import { checkBudgetStop, rootBudgetOf } from './budget-stops.js';

describe('a budget stop, checked against the run’s own records', () => {
  const marked = { exceeded: 'max_llm_calls', llm_calls: '2', tokens_in: '10', tokens_out: '5', cost_micro_usd: '300' };

  it('holds once the count has reached a limit of the run’s budget', () => {
    expect(checkBudgetStop(marked, { max_llm_calls: 2 })).toEqual({ holds: true, limit: 'max_llm_calls', reason: 'budget exceeded: max_llm_calls 2 reached (2 used)' });
    expect(checkBudgetStop({ ...marked, llm_calls: 'two' }, { max_tokens: 15 })).toMatchObject({ holds: true, limit: 'max_tokens' });
  });

  it('holds for a refused tool call once the run made its max_tool_calls, and not before', () => {
    const refused = { exceeded: 'max_tool_calls', tool_calls: '3' };
    expect(checkBudgetStop(refused, { max_tool_calls: 3 })).toEqual({ holds: true, limit: 'max_tool_calls', reason: 'budget exceeded: max_tool_calls 3 reached (3 made)' });
    expect(checkBudgetStop(refused, { max_tool_calls: 4 })).toMatchObject({ holds: false });
    expect(checkBudgetStop(refused, { max_llm_calls: 4 })).toMatchObject({ holds: false });
  });

  it('holds for a refused reservation: what is spent and held leaves no room for the call it asked for', () => {
    const refused = { exceeded: 'max_tokens', llm_calls: '2', held_tokens: '500', refused_tokens: '250' };
    expect(checkBudgetStop(refused, { max_tokens: 600 })).toEqual({
      holds: true,
      limit: 'max_tokens',
      reason: 'budget exceeded: max_tokens 600 reached (0 used, 500 held by calls in flight, a call asking 250 refused)',
    });
    // The same hash against a budget with room for the call asked: a stop the run's budget does not bear out.
    expect(checkBudgetStop(refused, { max_tokens: 800 })).toMatchObject({ holds: false });
    // Checked once the calls held then have settled (below their reservations): what they held when the call was refused counts.
    const settled = { exceeded: 'max_tokens', llm_calls: '2', tokens_in: '100', held_tokens: '0', refused_held_tokens: '500', refused_tokens: '250' };
    expect(checkBudgetStop(settled, { max_tokens: 600 })).toEqual({
      holds: true,
      limit: 'max_tokens',
      reason: 'budget exceeded: max_tokens 600 reached (100 used, 500 held by calls in flight, a call asking 250 refused)',
    });
  });

  it.each<[string, Record<string, string>, Parameters<typeof checkBudgetStop>[1], RegExp]>([
    ['a run without a budget', marked, null, /no budget/],
    ['a run within its budget', marked, { max_llm_calls: 3, max_cost_usd: 1 }, /within its budget/],
    // Limits written into the hash by whoever charges are not the run's: its budget is.
    ['a run whose hash claims tighter limits', { ...marked, max_llm_calls: '1' }, { max_llm_calls: 3 }, /within its budget/],
    ['a run no charge found over budget', { llm_calls: '9' }, { max_llm_calls: 3 }, /no charge found/],
    ['counts that are not numbers', { ...marked, llm_calls: 'lots' }, { max_llm_calls: 1 }, /within its budget/],
  ])('does not hold for %s', (_name, record, budget, reason) => {
    expect(checkBudgetStop(record, budget)).toEqual({ holds: false, reason: expect.stringMatching(reason) as string });
  });

  it("takes the run's budget from its root record: the objective's over the default, that very root's, signed when the deployment signs", () => {
    const keys = memoryKeySet();
    const root = (rootId: string, budget?: object, signer: Signer | null = keys.signer('client')) =>
      JSON.stringify(signRecord({ kind: 'root', root_id: rootId, submitted_at: new Date().toISOString(), objective: { objective: 'x', ...(budget ? { budget } : {}) } }, signer));
    expect(rootBudgetOf(root('r1', { max_llm_calls: 2 }), 'r1', { max_tokens: 100, max_llm_calls: 9 }, keys.signing)).toEqual({ max_tokens: 100, max_llm_calls: 2 });
    expect(rootBudgetOf(root('r1'), 'r1', null, keys.signing)).toBeNull();
    expect(rootBudgetOf(root('r2', { max_llm_calls: 2 }), 'r1', null, keys.signing)).toBeNull();
    expect(rootBudgetOf(root('r1', { max_llm_calls: 2 }, null), 'r1', null, keys.signing)).toBeNull();
    expect(rootBudgetOf(root('r1', { max_llm_calls: 2 }, keys.signer('fleet')), 'r1', null, keys.signing)).toBeNull();
    expect(rootBudgetOf(root('r1', { max_llm_calls: 2 }, null), 'r1', null, null)).toEqual({ max_llm_calls: 2 });
    expect(rootBudgetOf('{not json', 'r1', null, null)).toBeNull();
    expect(rootBudgetOf(null, 'r1', { max_llm_calls: 1 }, null)).toBeNull();
  });
});
