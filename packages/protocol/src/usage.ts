import { z } from 'zod';

const count = z.int().nonnegative();

/**
 * What model calls cost, as an outcome reports it in `resources_used.usage`: the usage of that hop
 * and of everything below it (docs/protocol.md#usage). Tokens are the endpoint's own counts
 * (estimated when it reports none); `cost_usd` is those tokens at the prices the Fleet was given,
 * rounded to a millionth of a dollar.
 */
export const usageSchema = z
  .looseObject({
    tokens_in: count.meta({ description: 'Prompt tokens, as the model endpoint counted them (estimated when it reported none).' }),
    tokens_out: count.meta({ description: 'Completion tokens, as the model endpoint counted them (estimated when it reported none).' }),
    cost_usd: z.number().nonnegative().meta({ description: 'Those tokens at the configured prices, in US dollars; 0 without prices.' }),
    llm_calls: count.meta({ description: 'Model calls made.' }),
  })
  .meta({ description: 'Usage of a hop and everything below it: resources_used.usage of an outcome.' });
export type Usage = z.output<typeof usageSchema>;

const positiveCount = z.int().positive({ message: 'must be a whole number above 0' });

/**
 * The most a run may spend, counted across every process of the deployment. Strict, and at least
 * one limit: a budget that limits nothing is a mistake, not a way to say "unlimited".
 */
export const budgetSchema = z
  .strictObject({
    max_tokens: positiveCount.optional().meta({ description: 'Tokens in and out together.' }),
    max_cost_usd: z.number().positive({ message: 'must be above 0' }).optional(),
    max_llm_calls: positiveCount.optional(),
    max_tool_calls: positiveCount.optional().meta({ description: 'Tool calls of LLM specialists (docs/extending.md#tools), across the run.' }),
  })
  .refine((budget) => budget.max_tokens !== undefined || budget.max_cost_usd !== undefined || budget.max_llm_calls !== undefined || budget.max_tool_calls !== undefined, {
    message: 'a budget sets at least one of max_tokens, max_cost_usd, max_llm_calls, max_tool_calls',
  })
  .meta({ description: 'Limits on what one run may spend on model and tool calls.' });
export type Budget = z.output<typeof budgetSchema>;
