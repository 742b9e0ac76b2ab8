import type { Budget, Usage } from '@tierflow/protocol';

/** The limits a budget may set, in the order they are checked. */
export const BUDGET_LIMITS = ['max_llm_calls', 'max_tokens', 'max_cost_usd'] as const;
export type BudgetLimit = (typeof BUDGET_LIMITS)[number];

/** Whether the run may go on, and if not, which limit stops it. */
export type BudgetVerdict = { readonly ok: true } | { readonly ok: false; readonly limit: BudgetLimit };

/** Costs are compared in whole millionths of a dollar, as Redis counts them. */
export function microUsd(usd: number): number {
  return Math.round(usd * 1e6);
}

function spentOn(limit: BudgetLimit, spent: Usage): number {
  switch (limit) {
    case 'max_llm_calls':
      return spent.llm_calls;
    case 'max_tokens':
      return spent.tokens_in + spent.tokens_out;
    case 'max_cost_usd':
      return microUsd(spent.cost_usd);
  }
}

function limitOf(limit: BudgetLimit, budget: Budget): number | undefined {
  const value = budget[limit];
  return value === undefined ? undefined : limit === 'max_cost_usd' ? microUsd(value) : value;
}

/**
 * May one more model call start? Not once any limit is reached: a run with `max_llm_calls: 2`
 * makes two calls, and the third is refused. Pure; the charge script in Redis decides the same
 * way, atomically, for every process at once.
 */
export function reservationVerdict(budget: Budget, spent: Usage): BudgetVerdict {
  for (const limit of BUDGET_LIMITS) {
    const max = limitOf(limit, budget);
    if (max !== undefined && spentOn(limit, spent) >= max) return { ok: false, limit };
  }
  return { ok: true };
}

/**
 * Has the run gone over its budget, now that a call's tokens are counted? Only past a limit: a
 * run that lands exactly on `max_tokens` is stopped by its next reservation, if it makes one.
 */
export function recordVerdict(budget: Budget, spent: Usage): BudgetVerdict {
  for (const limit of BUDGET_LIMITS) {
    const max = limitOf(limit, budget);
    if (max !== undefined && spentOn(limit, spent) > max) return { ok: false, limit };
  }
  return { ok: true };
}

/** Why a run was stopped, in words, e.g. `budget exceeded: max_llm_calls 2 reached (2 used)`. */
export function budgetExceededReason(limit: BudgetLimit, budget: Budget, spent: Usage): string {
  const used = limit === 'max_cost_usd' ? `$${spent.cost_usd}` : String(spentOn(limit, spent));
  return `budget exceeded: ${limit} ${String(budget[limit] ?? '?')} reached (${used} used)`;
}
