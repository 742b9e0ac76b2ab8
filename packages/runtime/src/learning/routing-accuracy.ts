import { decaySums, type DecayedSums, type LearningRecord } from '@tierflow/core';
import { z } from 'zod';

/** How routing choices went, decayed (`system/routing-accuracy`, globally and per task type). */
export const routingAccuracySchema = z.object({
  /** Leaf attempts that went to the specialist a routing decision chose first (decayed count). */
  routed: z.number().nonnegative(),
  /** The share of those whose chosen specialist succeeded; null with none. */
  first_choice_success_rate: z.number().min(0).max(1).nullable(),
  /** What shadow routing saw: how often learned routing would have chosen otherwise, and its expected gain; null with no shadow decisions. */
  shadow: z
    .object({
      decisions: z.number().nonnegative(),
      differs: z.number().nonnegative(),
      /** Learned's expected score minus fixed's, on average over the decisions that gave one. */
      mean_expected_gain: z.number().nullable(),
    })
    .nullable(),
});
export type RoutingAccuracy = z.infer<typeof routingAccuracySchema>;

/** The sums' fields (decayed counts, and the sum of expected gains). */
const F = {
  routed: 'routed',
  routedSuccess: 'routed_success',
  shadowDecisions: 'shadow_decisions',
  shadowDiffers: 'shadow_differs',
  shadowGain: 'shadow_gain',
  shadowGainSamples: 'shadow_gain_samples',
} as const;

/**
 * What one leaf attempt adds to the routing accuracy: null unless it went to the specialist a
 * routing decision chose first (a re-route to an alternate, or a leaf that inherited its
 * subtask's first decision after the table moved it on, is not a first choice). Pure.
 */
export function routingIncrements(record: LearningRecord): Record<string, number> | null {
  const { routing } = record;
  if (routing === null || routing.reason === 'reroute') return null;
  if (routing.chosen !== undefined && record.specialist !== routing.chosen) return null;
  const increments: Record<string, number> = { [F.routed]: 1, [F.routedSuccess]: record.status === 'success' ? 1 : 0 };
  if (routing.mode === 'shadow') {
    increments[F.shadowDecisions] = 1;
    increments[F.shadowDiffers] = routing.learned !== null && routing.learned !== routing.fixed ? 1 : 0;
    if (routing.expected_gain !== null) {
      increments[F.shadowGain] = routing.expected_gain;
      increments[F.shadowGainSamples] = 1;
    }
  }
  return increments;
}

/** The routing accuracy a value holds, decayed to `now`; null without a routed attempt. Pure. */
export function routingAccuracy(value: DecayedSums | null, now: number): RoutingAccuracy | null {
  if (value === null) return null;
  const sums = decaySums(value, now).sums;
  const field = (name: string): number => Math.max(0, sums[name] ?? 0);
  const routed = field(F.routed);
  const decisions = field(F.shadowDecisions);
  const gainSamples = field(F.shadowGainSamples);
  if (routed <= 0) return null;
  return {
    routed,
    first_choice_success_rate: clamp01(field(F.routedSuccess) / routed),
    shadow: decisions > 0 ? { decisions, differs: Math.min(decisions, field(F.shadowDiffers)), mean_expected_gain: gainSamples > 0 ? (sums[F.shadowGain] ?? 0) / gainSamples : null } : null,
  };
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
