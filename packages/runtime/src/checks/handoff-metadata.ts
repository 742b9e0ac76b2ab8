import { aggregateMetadata, type AggregatedMetadata } from '@tierflow/core';
import type { SettledRound, Step } from '../policy/handler.js';

/**
 * The policy's step, its outcome carrying the handoff metadata of the round it answers
 * (docs/protocol.md#handoff-metadata): sources summed, gaps and assumptions unioned, the oldest
 * freshness, over its own and every child's that was not cancelled. A round without any metadata
 * leaves the step as it was.
 */
export function withHandoffMetadata(step: Step, round: SettledRound): Step {
  if (step.kind !== 'outcome') return step;
  const children = round.children.filter((child) => child.outcome.payload.status !== 'cancelled').map((child) => metadataOf(child.outcome.payload));
  const own = metadataOf(step.outcome);
  const combined = aggregateMetadata(own, children);
  if (Object.keys(combined).length === 0) return step;
  return { kind: 'outcome', outcome: { ...step.outcome, ...combined } };
}

function metadataOf(payload: AggregatedMetadata): AggregatedMetadata {
  const { sources_count, data_freshness, gaps, assumptions } = payload;
  return {
    ...(sources_count === undefined ? {} : { sources_count }),
    ...(data_freshness === undefined ? {} : { data_freshness }),
    ...(gaps === undefined ? {} : { gaps }),
    ...(assumptions === undefined ? {} : { assumptions }),
  };
}
