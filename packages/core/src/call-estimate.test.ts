import { describe, expect, it } from 'vitest';
import { callCharge, callEstimate, DEFAULT_RESERVED_OUTPUT_TOKENS, estimateTokens } from './call-estimate.js';

const PRICE = { input_usd_per_mtok: 10, output_usd_per_mtok: 30 };

describe('a call’s reservation and charge', () => {
  it.each<[string, number]>([
    ['', 0],
    ['a', 1],
    ['abcd', 1],
    ['abcde', 2],
    ['x'.repeat(1_000), 250],
  ])('estimates %j at %i tokens (4 characters a token, rounded up)', (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it.each<[string, number | null, typeof PRICE | null, { tokens_in: number; tokens_out: number; cost_usd: number }]>([
    ['with max_tokens and a price', 100, PRICE, { tokens_in: 250, tokens_out: 100, cost_usd: 0.0055 }],
    ['without max_tokens: the bounded default', null, PRICE, { tokens_in: 250, tokens_out: DEFAULT_RESERVED_OUTPUT_TOKENS, cost_usd: 0.03322 }],
    ['without a price: no cost', 100, null, { tokens_in: 250, tokens_out: 100, cost_usd: 0 }],
  ])('reserves a call %s', (_name, maxTokens, price, expected) => {
    expect(callEstimate('x'.repeat(1_000), maxTokens, price)).toEqual({ ...expected, llm_calls: 1 });
  });

  const reserved = callEstimate('x'.repeat(1_000), 100, PRICE);
  it.each([
    ['answered: what the endpoint counted', { kind: 'answered', tokensIn: 300, tokensOut: 40 } as const, { tokens_in: 300, tokens_out: 40, cost_usd: 0.0042 }, false],
    ['answered without usage: the prompt estimate and the answer’s', { kind: 'unreported', content: 'y'.repeat(41) } as const, { tokens_in: 250, tokens_out: 11, cost_usd: 0.00283 }, true],
    ['lost (aborted, or no answer): the prompt estimate, since it is billed', { kind: 'lost' } as const, { tokens_in: 250, tokens_out: 0, cost_usd: 0.0025 }, false],
    ['refused by the endpoint: nothing but the call', { kind: 'refused' } as const, { tokens_in: 0, tokens_out: 0, cost_usd: 0 }, false],
  ])('charges a call %s', (_name, end, usage, estimated) => {
    expect(callCharge(reserved, end, PRICE)).toEqual({ usage: { ...usage, llm_calls: 1 }, estimated });
  });

  it('charges a call never sent (no connection to the endpoint) nothing, not even the call', () => {
    expect(callCharge(reserved, { kind: 'unsent' }, PRICE)).toEqual({ usage: { tokens_in: 0, tokens_out: 0, cost_usd: 0, llm_calls: 0 }, estimated: false });
  });
});
