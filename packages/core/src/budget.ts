import type { Budget, Usage } from '@tierflow/protocol';
import { addUsage, roundCost, ZERO_USAGE } from './usage.js';

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
 * May one more model call start, reserving `estimate` (its prompt estimated and its output limit,
 * priced)? `committed` is what the run has spent plus what its calls in flight hold, and counts
 * those calls. Refused once any limit is reached, or when the reservation would pass one: a run
 * with `max_llm_calls: 2` makes two calls, and a run with `max_tokens: 600` never sends a call
 * reserved for 300 when 301 are committed. Pure; the reserve script in Redis decides the same way,
 * atomically, for every process at once.
 */
export function reservationVerdict(budget: Budget, committed: Usage, estimate: Usage = ZERO_USAGE): BudgetVerdict {
  for (const limit of BUDGET_LIMITS) {
    const max = limitOf(limit, budget);
    if (max === undefined) continue;
    const used = spentOn(limit, committed);
    // A call is one call whatever its estimate says.
    const asked = limit === 'max_llm_calls' ? 1 : spentOn(limit, estimate);
    if (used >= max || used + asked > max) return { ok: false, limit };
  }
  return { ok: true };
}

/**
 * A run's count: what settled calls used (with `llm_calls` counting the calls in flight too, as
 * the reservation counted them), what calls in flight hold (their reservations), and how many
 * calls are in flight.
 */
export interface BudgetCount {
  readonly spent: Usage;
  readonly held: Usage;
  readonly heldCalls: number;
}

/** The count once a reservation is taken: the call is counted, its estimate held. Pure. */
export function withReservation(count: BudgetCount, estimate: Usage): BudgetCount {
  return {
    spent: { ...count.spent, llm_calls: count.spent.llm_calls + 1 },
    held: addUsage(count.held, { ...estimate, llm_calls: 0 }),
    heldCalls: count.heldCalls + 1,
  };
}

/**
 * The count once a call settles: its reservation released, what it is charged spent. Its
 * `llm_calls` is ignored (the reservation counted the call), but for 0, a call never sent: its
 * count is taken back. Pure; the settle script does the same.
 */
export function withSettlement(count: BudgetCount, reserved: Usage, charged: Usage): BudgetCount {
  const release = (held: number, part: number): number => Math.max(0, held - part);
  const unsent = charged.llm_calls === 0 ? 1 : 0;
  return {
    spent: addUsage(count.spent, { ...charged, llm_calls: -Math.min(unsent, count.spent.llm_calls) }),
    held: {
      tokens_in: release(count.held.tokens_in, reserved.tokens_in),
      tokens_out: release(count.held.tokens_out, reserved.tokens_out),
      cost_usd: roundCost(Math.max(0, count.held.cost_usd - reserved.cost_usd)),
      llm_calls: 0,
    },
    heldCalls: Math.max(0, count.heldCalls - 1),
  };
}

/**
 * Whether a refused reservation is worth another try once the calls in flight settle: refused on
 * what is committed, it would fit on what settled calls alone used. A call in flight may give
 * back all it holds (never sent: an endpoint that cannot be reached) or part of it (it used less
 * than reserved), so a caller that waits for them is refused only by what was really spent. Pure.
 */
export function refusalWaits(budget: Budget, count: BudgetCount, estimate: Usage = ZERO_USAGE): boolean {
  if (count.heldCalls <= 0 || reservationVerdict(budget, addUsage(count.spent, count.held), estimate).ok) return false;
  const settled = { ...count.spent, llm_calls: Math.max(0, count.spent.llm_calls - count.heldCalls) };
  return reservationVerdict(budget, settled, estimate).ok;
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

/**
 * Why a run was stopped, in words, e.g. `budget exceeded: max_llm_calls 2 reached (2 used)`, or
 * with what was held and asked when a reservation was refused:
 * `budget exceeded: max_tokens 600 reached (0 used, 375 held by calls in flight, a call asking 375 refused)`.
 */
export function budgetExceededReason(limit: BudgetLimit, budget: Budget, spent: Usage, pending?: { readonly held: Usage; readonly asked: Usage }): string {
  const shown = (usage: Usage): string => (limit === 'max_cost_usd' ? `$${usage.cost_usd}` : String(spentOn(limit, usage)));
  const parts = [`${shown(spent)} used`];
  if (pending && limit !== 'max_llm_calls') {
    if (spentOn(limit, pending.held) > 0) parts.push(`${shown(pending.held)} held by calls in flight`);
    if (spentOn(limit, pending.asked) > 0) parts.push(`a call asking ${shown(pending.asked)} refused`);
  }
  return `budget exceeded: ${limit} ${String(budget[limit] ?? '?')} reached (${parts.join(', ')})`;
}

/**
 * A run's budget as it stands: its limits (none set, an empty object) and what it has committed,
 * spent and held by calls in flight. What a policy weighs before it starts more work.
 */
export interface BudgetStanding {
  readonly limits: Budget;
  readonly committed: Usage;
}

/** What is left of each limit the run has, never below 0; null for a limit it does not have. Pure. */
export function budgetLeft(standing: BudgetStanding): { readonly llm_calls: number | null; readonly tokens: number | null; readonly cost_usd: number | null } {
  const { limits, committed } = standing;
  const left = (max: number | undefined, used: number): number | null => (max === undefined ? null : Math.max(0, max - used));
  const cost = left(limits.max_cost_usd === undefined ? undefined : microUsd(limits.max_cost_usd), microUsd(committed.cost_usd));
  return {
    llm_calls: left(limits.max_llm_calls, committed.llm_calls),
    tokens: left(limits.max_tokens, committed.tokens_in + committed.tokens_out),
    cost_usd: cost === null ? null : cost / 1e6,
  };
}
