import type { AggregationStrategy } from '@tierflow/protocol';
import type { AggregationCounts } from './child-result.js';

/** Which side holds the majority of a partial fan-out. */
export type Majority = 'succeeded' | 'failed';

/** What a strategy alone makes of the counted children, before the cancellation and clarification rules. */
export type StrategyVerdict =
  { readonly status: 'success'; readonly majority: null } | { readonly status: 'failed'; readonly majority: null } | { readonly status: 'partial'; readonly majority: Majority };

/** More than half; counts are integers, so `2 × part > whole` is exact, and a tie is not a majority. */
export function isMajority(part: number, whole: number): boolean {
  return part * 2 > whole;
}

const SUCCESS: StrategyVerdict = { status: 'success', majority: null };

/** Partial-success rules (docs/protocol.md#aggregation-strategies): nothing gained is a failure; anything gained is partial. */
function shortOfSuccess(counts: AggregationCounts, counted: number): StrategyVerdict {
  if (counts.succeeded === 0 && counts.progressed === 0) return { status: 'failed', majority: null };
  return { status: 'partial', majority: isMajority(counts.succeeded, counted) ? 'succeeded' : 'failed' };
}

/**
 * Each strategy's rule over the counted children (`counted` > 0). For first_success a winner
 * exists exactly when a child succeeded, so its rule reads like any_success; the difference lies
 * in which children the aggregate carries (the winner alone) and in the losers to cancel.
 */
const STRATEGY_RULES: Readonly<Record<AggregationStrategy, (counts: AggregationCounts, counted: number) => StrategyVerdict>> = {
  all_success: (counts, counted) => (counts.succeeded === counted ? SUCCESS : shortOfSuccess(counts, counted)),
  any_success: (counts, counted) => (counts.succeeded > 0 ? SUCCESS : shortOfSuccess(counts, counted)),
  majority: (counts, counted) => (isMajority(counts.succeeded, counted) ? SUCCESS : shortOfSuccess(counts, counted)),
  first_success: (counts, counted) => (counts.succeeded > 0 ? SUCCESS : shortOfSuccess(counts, counted)),
};

/** The strategy's verdict; `counts` must hold at least one counted (non-cancelled) child. */
export function strategyVerdict(strategy: AggregationStrategy, counts: AggregationCounts, counted: number): StrategyVerdict {
  return STRATEGY_RULES[strategy](counts, counted);
}
