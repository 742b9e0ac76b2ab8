import { describe, expect, it } from 'vitest';
import { budgetExceededReason, recordVerdict, reservationVerdict } from './budget.js';

const spent = (tokens_in: number, tokens_out: number, cost_usd: number, llm_calls: number) => ({ tokens_in, tokens_out, cost_usd, llm_calls });

describe('budget decisions', () => {
  it('lets a call start until a limit is reached, then refuses it', () => {
    const budget = { max_llm_calls: 2 };
    expect(reservationVerdict(budget, spent(0, 0, 0, 0))).toEqual({ ok: true });
    expect(reservationVerdict(budget, spent(100, 100, 1, 1))).toEqual({ ok: true });
    expect(reservationVerdict(budget, spent(0, 0, 0, 2))).toEqual({ ok: false, limit: 'max_llm_calls' });
  });

  it('counts tokens in and out together, and cost in millionths of a dollar', () => {
    expect(reservationVerdict({ max_tokens: 10 }, spent(6, 4, 0, 1))).toEqual({ ok: false, limit: 'max_tokens' });
    expect(reservationVerdict({ max_tokens: 10 }, spent(6, 3, 0, 1))).toEqual({ ok: true });
    expect(reservationVerdict({ max_cost_usd: 0.3 }, spent(0, 0, 0.1 + 0.2, 1))).toEqual({ ok: false, limit: 'max_cost_usd' });
  });

  it('finds a run over its budget only past a limit, once a call is recorded', () => {
    expect(recordVerdict({ max_tokens: 10 }, spent(6, 4, 0, 1))).toEqual({ ok: true });
    expect(recordVerdict({ max_tokens: 10 }, spent(6, 5, 0, 1))).toEqual({ ok: false, limit: 'max_tokens' });
    expect(recordVerdict({ max_cost_usd: 0.01, max_tokens: 1_000 }, spent(1, 1, 0.010001, 1))).toEqual({ ok: false, limit: 'max_cost_usd' });
    expect(recordVerdict({ max_llm_calls: 1 }, spent(1, 1, 0, 1))).toEqual({ ok: true });
  });

  it('says which limit stopped the run', () => {
    expect(budgetExceededReason('max_llm_calls', { max_llm_calls: 2 }, spent(0, 0, 0, 2))).toBe('budget exceeded: max_llm_calls 2 reached (2 used)');
    expect(budgetExceededReason('max_cost_usd', { max_cost_usd: 0.5 }, spent(0, 0, 0.51, 3))).toBe('budget exceeded: max_cost_usd 0.5 reached ($0.51 used)');
  });
});
