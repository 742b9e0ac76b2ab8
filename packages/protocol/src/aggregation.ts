import { z } from 'zod';
import { messageIdSchema } from './identifiers.js';
import { confidenceSchema } from './payloads/outcome.js';
import { outcomeStatusSchema } from './statuses.js';

export const AGGREGATION_STRATEGIES = ['all_success', 'any_success', 'majority', 'first_success'] as const;

export const aggregationStrategySchema = z.enum(AGGREGATION_STRATEGIES).meta({
  description:
    'all_success: success only if every child succeeds; any_success: success if any does; majority: success if more than half do; ' +
    'first_success: the first success wins and the others are cancelled.',
});
export type AggregationStrategy = z.infer<typeof aggregationStrategySchema>;

/** A fan-out: one delegation spawning several child delegations (docs/protocol.md#aggregated-outcome). */
export const parallelDelegationSchema = z
  .looseObject({
    parent_id: messageIdSchema.meta({ description: 'The delegation that spawned the children.' }),
    child_ids: z.array(messageIdSchema).min(1).meta({ description: 'The child delegation message ids.' }),
    aggregation_strategy: aggregationStrategySchema,
  })
  .meta({ description: 'A fan-out of one delegation into parallel child delegations.' });
export type ParallelDelegation = z.output<typeof parallelDelegationSchema>;

/** One child's result as the aggregate reports it (docs/protocol.md#aggregated-outcome). */
export const childOutcomeSummarySchema = z
  .looseObject({
    message_id: messageIdSchema,
    status: outcomeStatusSchema,
    confidence: confidenceSchema,
    specialist: z.string().meta({ description: 'Who handled the child; empty when it never reached one.' }),
  })
  .meta({ description: "One child's outcome within an aggregated outcome." });
export type ChildOutcomeSummary = z.output<typeof childOutcomeSummarySchema>;

/** The combined result of a fan-out (docs/protocol.md#aggregated-outcome). */
export const aggregatedOutcomeSchema = z
  .looseObject({
    strategy_used: aggregationStrategySchema,
    child_outcomes: z.array(childOutcomeSummarySchema).min(1),
    aggregated_status: outcomeStatusSchema,
    aggregated_confidence: confidenceSchema.meta({ description: "How far the aggregate's work can be trusted: the mean of the children's confidences, a failed child counting 0." }),
  })
  .meta({ description: 'The result of a fan-out, combined by its strategy.' });
export type AggregatedOutcome = z.output<typeof aggregatedOutcomeSchema>;
