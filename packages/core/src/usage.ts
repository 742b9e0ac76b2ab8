import { isJsonObject, type Usage } from '@tierflow/protocol';

/** No model calls, nothing spent. */
export const ZERO_USAGE: Usage = Object.freeze({ tokens_in: 0, tokens_out: 0, cost_usd: 0, llm_calls: 0 });

/** Costs are kept to a millionth of a dollar: finer is noise, and sums of floats drift otherwise. */
export function roundCost(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

/** Two usages together. Pure. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    tokens_in: a.tokens_in + b.tokens_in,
    tokens_out: a.tokens_out + b.tokens_out,
    cost_usd: roundCost(a.cost_usd + b.cost_usd),
    llm_calls: a.llm_calls + b.llm_calls,
  };
}

/** Every usage together; zero for none. */
export function sumUsage(usages: Iterable<Usage>): Usage {
  let total = ZERO_USAGE;
  for (const usage of usages) total = addUsage(total, usage);
  return total;
}

export function isZeroUsage(usage: Usage): boolean {
  return usage.tokens_in === 0 && usage.tokens_out === 0 && usage.cost_usd === 0 && usage.llm_calls === 0;
}

/**
 * A usage object as found, read field by field: a field that is not a finite number from 0 up
 * counts as 0, and anything that is not an object is zero usage. Never throws: usage comes from
 * other processes' outcomes and records, and a bad one must not stop the run that reads it.
 */
export function readUsage(value: unknown): Usage {
  if (!isJsonObject(value)) return ZERO_USAGE;
  return {
    tokens_in: Math.floor(amount(value.tokens_in)),
    tokens_out: Math.floor(amount(value.tokens_out)),
    cost_usd: roundCost(amount(value.cost_usd)),
    llm_calls: Math.floor(amount(value.llm_calls)),
  };
}

/** The usage an outcome reports in `resources_used.usage` (read as {@link readUsage} does). */
export function usageOf(resourcesUsed: unknown): Usage {
  return isJsonObject(resourcesUsed) ? readUsage(resourcesUsed.usage) : ZERO_USAGE;
}

/**
 * `resources_used` without its `usage`: what a policy forwards from a child's outcome, since the
 * runtime adds the children's usage itself and a forwarded copy would count twice.
 */
export function withoutUsage<T extends Readonly<Record<string, unknown>>>(resourcesUsed: T): Omit<T, 'usage'> {
  const { usage: _usage, ...rest } = resourcesUsed;
  return rest;
}

/** What a model costs, in US dollars per million tokens, as its provider prices it. */
export interface ModelPrice {
  readonly input_usd_per_mtok: number;
  readonly output_usd_per_mtok: number;
}

/** The usage of one model call: its tokens, and their cost at `price` (0 without one). */
export function callUsage(tokensIn: number, tokensOut: number, price: ModelPrice | null): Usage {
  const tokens_in = Math.floor(amount(tokensIn));
  const tokens_out = Math.floor(amount(tokensOut));
  const cost = price ? (tokens_in * price.input_usd_per_mtok + tokens_out * price.output_usd_per_mtok) / 1e6 : 0;
  return { tokens_in, tokens_out, cost_usd: roundCost(cost), llm_calls: 1 };
}

function amount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}
