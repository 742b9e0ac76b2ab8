import { addUsage, type BudgetStanding } from '@tierflow/core';
import type { Budget } from '@tierflow/protocol';
import { spentOf } from './budget-stops.js';

/**
 * A run's standing from its budget hash (fields in charge-usage.ts): the limits the Monitor wrote,
 * and what settled calls spent plus what calls in flight hold. Read leniently: a field that is
 * not a whole number counts 0, a limit that is not one is left out. For a policy weighing more
 * work, not for stopping a run (that trusts the Monitor's own budget: checkBudgetStop). Pure.
 */
export function budgetStandingOf(record: Readonly<Record<string, string>>): BudgetStanding {
  const whole = (field: string): number | undefined => {
    const value = Number(record[field]);
    return record[field] !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  };
  const [calls, tokens, micro] = [whole('max_llm_calls'), whole('max_tokens'), whole('max_cost_micro_usd')];
  const limits: Budget = {
    ...(calls === undefined ? {} : { max_llm_calls: calls }),
    ...(tokens === undefined ? {} : { max_tokens: tokens }),
    ...(micro === undefined ? {} : { max_cost_usd: micro / 1e6 }),
  };
  const held = { tokens_in: whole('held_tokens') ?? 0, tokens_out: 0, cost_usd: (whole('held_micro_usd') ?? 0) / 1e6, llm_calls: 0 };
  return { limits, committed: addUsage(spentOf(record), held) };
}
