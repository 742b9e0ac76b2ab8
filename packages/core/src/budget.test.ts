import { describe, expect, it } from 'vitest';
import { budgetExceededReason, budgetLeft, recordVerdict, refusalWaits, reservationVerdict, withReservation, withSettlement } from './budget.js';

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

  // committed: what is spent plus what calls in flight hold; asked: the new call's reservation.
  it.each<[string, Parameters<typeof reservationVerdict>[0], ReturnType<typeof spent>, ReturnType<typeof spent>, string | null]>([
    ['a reservation that fits exactly', { max_tokens: 600 }, spent(200, 100, 0, 1), spent(250, 50, 0, 1), null],
    ['one token too many', { max_tokens: 600 }, spent(200, 100, 0, 1), spent(250, 51, 0, 1), 'max_tokens'],
    ['a call bigger than the whole budget, with nothing spent', { max_tokens: 100 }, spent(0, 0, 0, 0), spent(90, 100, 0, 1), 'max_tokens'],
    ['a cost reservation that fits', { max_cost_usd: 0.01 }, spent(0, 0, 0.0045, 1), spent(0, 0, 0.0055, 1), null],
    ['a cost reservation a millionth over', { max_cost_usd: 0.01 }, spent(0, 0, 0.0045, 1), spent(0, 0, 0.005501, 1), 'max_cost_usd'],
    ['calls count one each, whatever the estimate', { max_llm_calls: 3 }, spent(0, 0, 0, 2), spent(9_999, 0, 0, 1), null],
    ['the call after the last', { max_llm_calls: 3 }, spent(0, 0, 0, 3), spent(0, 0, 0, 1), 'max_llm_calls'],
    ['a reached limit refuses even an empty estimate', { max_tokens: 10 }, spent(6, 4, 0, 1), spent(0, 0, 0, 0), 'max_tokens'],
  ])('reservation: %s', (_name, budget, committed, asked, limit) => {
    expect(reservationVerdict(budget, committed, asked)).toEqual(limit === null ? { ok: true } : { ok: false, limit });
  });

  it.each<[string, ReturnType<typeof spent>, ReturnType<typeof spent>, ReturnType<typeof spent>, ReturnType<typeof spent>]>([
    ['an answer under its reservation gives back the difference', spent(250, 100, 0.0055, 1), spent(50, 100, 0.0035, 1), spent(50, 100, 0.0035, 0), spent(0, 0, 0, 0)],
    ['an answer over it (a prompt under-estimated) is counted in full', spent(250, 100, 0.0055, 1), spent(400, 100, 0.007, 1), spent(400, 100, 0.007, 0), spent(0, 0, 0, 0)],
    ['a refused call releases everything and spends nothing', spent(250, 100, 0.0055, 1), spent(0, 0, 0, 1), spent(0, 0, 0, 1), spent(0, 0, 0, 0)],
    ['a call never sent is no call at all', spent(250, 100, 0.0055, 1), spent(0, 0, 0, 0), spent(0, 0, 0, 0), spent(0, 0, 0, 0)],
  ])('settlement: %s', (_name, reserved, charged, spentAfter, heldAfter) => {
    const start = { spent: spent(0, 0, 0, 0), held: spent(0, 0, 0, 0), heldCalls: 0 };
    const taken = withReservation(start, reserved);
    expect(taken).toEqual({ spent: spent(0, 0, 0, 1), held: { ...reserved, llm_calls: 0 }, heldCalls: 1 });
    expect(withSettlement(taken, reserved, charged)).toEqual({ spent: { ...spentAfter, llm_calls: spentAfter.llm_calls || (charged.llm_calls === 0 ? 0 : 1) }, held: heldAfter, heldCalls: 0 });
  });

  it.each<[string, Parameters<typeof refusalWaits>[0], Parameters<typeof refusalWaits>[1], ReturnType<typeof spent>, boolean]>([
    ['the last calls are in flight and may never be sent', { max_llm_calls: 2 }, { spent: spent(0, 0, 0, 2), held: spent(0, 0, 0, 0), heldCalls: 2 }, spent(10, 10, 0, 1), true],
    ['the last calls were made', { max_llm_calls: 2 }, { spent: spent(5, 5, 0, 2), held: spent(0, 0, 0, 0), heldCalls: 0 }, spent(10, 10, 0, 1), false],
    ['tokens held may be given back', { max_tokens: 100 }, { spent: spent(20, 20, 0, 2), held: spent(50, 0, 0, 0), heldCalls: 1 }, spent(30, 0, 0, 1), true],
    ['what settled alone leaves no room', { max_tokens: 100 }, { spent: spent(50, 30, 0, 2), held: spent(50, 0, 0, 0), heldCalls: 1 }, spent(30, 0, 0, 1), false],
    ['not refused at all', { max_llm_calls: 3 }, { spent: spent(0, 0, 0, 2), held: spent(0, 0, 0, 0), heldCalls: 2 }, spent(1, 1, 0, 1), false],
  ])('a refused reservation waits for calls in flight: %s', (_name, budget, count, asked, waits) => {
    expect(refusalWaits(budget, count, asked)).toBe(waits);
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
    const pending = { held: spent(250, 100, 0, 0), asked: spent(275, 100, 0, 1) };
    expect(budgetExceededReason('max_tokens', { max_tokens: 600 }, spent(0, 0, 0, 1), pending)).toBe(
      'budget exceeded: max_tokens 600 reached (0 used, 350 held by calls in flight, a call asking 375 refused)',
    );
  });
});

describe('budgetLeft', () => {
  const committed = { tokens_in: 300, tokens_out: 100, cost_usd: 0.25, llm_calls: 3 };

  it('is each limit less what is committed, never below 0, null for a limit the run lacks', () => {
    expect(budgetLeft({ limits: { max_llm_calls: 5, max_tokens: 1_000, max_cost_usd: 1 }, committed })).toEqual({ llm_calls: 2, tokens: 600, cost_usd: 0.75 });
    expect(budgetLeft({ limits: { max_llm_calls: 2, max_cost_usd: 0.1 }, committed })).toEqual({ llm_calls: 0, tokens: null, cost_usd: 0 });
    expect(budgetLeft({ limits: {}, committed })).toEqual({ llm_calls: null, tokens: null, cost_usd: null });
  });

  it('counts cost in millionths, as Redis does', () => {
    expect(budgetLeft({ limits: { max_cost_usd: 0.3 }, committed: { ...committed, cost_usd: 0.1 } }).cost_usd).toBe(0.2);
  });
});
