import { describe, expect, it } from 'vitest';
import { addUsage, callUsage, readUsage, roundCost, sumUsage, usageOf, withoutUsage, ZERO_USAGE } from './usage.js';

const usage = (tokens_in: number, tokens_out: number, cost_usd: number, llm_calls: number) => ({ tokens_in, tokens_out, cost_usd, llm_calls });

describe('usage', () => {
  it('adds field by field, keeping cost to a millionth of a dollar', () => {
    expect(addUsage(usage(10, 5, 0.1, 1), usage(2, 3, 0.2, 1))).toEqual(usage(12, 8, 0.3, 2));
    expect(sumUsage([usage(1, 1, 0.000001, 1), usage(1, 1, 0.000002, 1), usage(1, 1, 0.0000004, 1)])).toEqual(usage(3, 3, 0.000003, 3));
    expect(sumUsage([])).toEqual(ZERO_USAGE);
    expect(roundCost(0.1 + 0.2)).toBe(0.3);
  });

  it('reads what it finds leniently: bad or absent fields count as zero, and it never throws', () => {
    expect(readUsage({ tokens_in: 7, tokens_out: 'many', cost_usd: -1, llm_calls: 2.7, extra: true })).toEqual(usage(7, 0, 0, 2));
    for (const bad of [null, undefined, 'usage', 42, [1, 2], { tokens_in: Number.NaN }]) expect(readUsage(bad)).toEqual(ZERO_USAGE);
    expect(usageOf({ model: 'm', usage: usage(1, 2, 0.5, 1) })).toEqual(usage(1, 2, 0.5, 1));
    expect(usageOf({ model: 'm' })).toEqual(ZERO_USAGE);
    expect(usageOf('not an object')).toEqual(ZERO_USAGE);
  });

  it('prices a call per million tokens, and costs nothing without a price', () => {
    expect(callUsage(1_000, 500, { input_usd_per_mtok: 3, output_usd_per_mtok: 15 })).toEqual(usage(1_000, 500, 0.0105, 1));
    expect(callUsage(12, 5, { input_usd_per_mtok: 0.15, output_usd_per_mtok: 0.6 })).toEqual(usage(12, 5, 0.000005, 1));
    expect(callUsage(12, 5, null)).toEqual(usage(12, 5, 0, 1));
  });

  it('drops a forwarded usage, keeping the rest', () => {
    expect(withoutUsage({ revisions: 1, usage: usage(1, 1, 0, 1) })).toEqual({ revisions: 1 });
  });
});
