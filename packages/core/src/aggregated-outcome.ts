import type { AggregatedOutcome } from '@tierflow/protocol';
import type { Aggregation } from './aggregate.js';

/** The artifact_type of the artifact carrying an aggregation: the first artifact of a parent's aggregated outcome. */
export const AGGREGATION_SUMMARY = 'aggregation_summary';

/**
 * The wire form of an aggregation (docs/protocol.md#aggregated-outcome), ready to travel in an
 * outcome's artifact or metadata; it passes `aggregatedOutcomeSchema`.
 */
export function toAggregatedOutcome(aggregation: Aggregation): AggregatedOutcome {
  return {
    strategy_used: aggregation.strategy,
    child_outcomes: aggregation.child_outcomes.map((child) => ({ ...child })),
    aggregated_status: aggregation.status,
    aggregated_confidence: aggregation.confidence,
  };
}
