import { BUDGET_LIMITS, budgetExceededReason, type BudgetLimit } from '@tierflow/core';
import { ERROR_TYPES, messageIdSchema, type Budget } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import type { ControlKeys } from '../cancellation/control-keys.js';
import type { TierCanceller } from '../cancellation/tier-canceller.js';

/** A member of the budget-stops set: a root id, or null for anything else (which the sweep drops). */
export function parseBudgetStop(member: string): string | null {
  return messageIdSchema.safeParse(member).success ? member : null;
}

export interface BudgetStopDeps {
  readonly redis: RedisClient;
  readonly keys: ControlKeys;
  /** The Monitor's canceller: the run is cancelled in the Monitor's name, which every tier honours. */
  readonly canceller: TierCanceller;
}

/**
 * Cancels a run that went over its budget, with the cascade every cancellation uses; each of its
 * jobs answers `cancelled` with error_type `budget_exceeded`, keeping what had been done. A Fleet
 * cannot cancel a whole run in its own name (a tier stops only work below it), so it queues the
 * root and a Monitor process does it. Answers null: done (the sweep then drops the entry).
 */
export async function stopOverBudget(deps: BudgetStopDeps, rootId: string): Promise<null> {
  const record = await deps.redis.hgetall(deps.keys.budget(rootId));
  await deps.canceller.cancelWith(rootId, stopReason(record), ERROR_TYPES.budgetExceeded);
  return null;
}

/** The reason the marks carry, from the budget hash read leniently: a bad field only loses detail. */
export function stopReason(record: Record<string, string>): string {
  const limit = BUDGET_LIMITS.find((name) => name === record.exceeded);
  if (!limit) return 'budget exceeded';
  const whole = (field: string): number | undefined => {
    const value = Number(record[field]);
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  };
  const micro = whole('max_cost_micro_usd');
  const budget: Budget = {
    ...(whole('max_llm_calls') === undefined ? {} : { max_llm_calls: whole('max_llm_calls')! }),
    ...(whole('max_tokens') === undefined ? {} : { max_tokens: whole('max_tokens')! }),
    ...(micro === undefined ? {} : { max_cost_usd: micro / 1e6 }),
  };
  const spent = {
    llm_calls: whole('llm_calls') ?? 0,
    tokens_in: whole('tokens_in') ?? 0,
    tokens_out: whole('tokens_out') ?? 0,
    cost_usd: (whole('cost_micro_usd') ?? 0) / 1e6,
  };
  // Tokens held and asked are kept in and out together: the limit counts them so.
  const part = (tokens: string, micro: string) => ({ tokens_in: whole(tokens) ?? 0, tokens_out: 0, cost_usd: (whole(micro) ?? 0) / 1e6, llm_calls: 0 });
  const pending = { held: part('held_tokens', 'held_micro_usd'), asked: part('refused_tokens', 'refused_micro_usd') };
  return budgetExceededReason(limit satisfies BudgetLimit, budget, spent, pending);
}
