import { type DecayedSums, decaySums } from './decayed-sums.js';

/** Decayed revisions tried for a task type, and how many of them ended in a success. */
export interface RevisionStats {
  readonly samples: number;
  readonly succeeded: number;
}

/** The sums fields: `revisions` (rounds revised), `succeeded` (1 for a run that revised and then succeeded). */
export function revisionIncrements(revisions: number, succeeded: boolean): Record<string, number> {
  if (!(revisions > 0)) return {};
  return { revisions, succeeded: succeeded ? 1 : 0 };
}

export function revisionStats(value: DecayedSums | null, now: number): RevisionStats {
  if (value === null) return { samples: 0, succeeded: 0 };
  const { sums } = decaySums(value, now);
  const samples = Math.max(0, sums.revisions ?? 0);
  return { samples, succeeded: Math.min(samples, Math.max(0, sums.succeeded ?? 0)) };
}

export interface RevisionOutlookInput {
  readonly stats: RevisionStats | null;
  /** Null when the run has no cost budget. */
  readonly budgetLeftUsd: number | null;
  /** What one more round is expected to cost; null when unknown. */
  readonly roundCostUsd: number | null;
  /** Default 5. */
  readonly minSamples?: number;
  /** Default 0.1. */
  readonly minSuccessRate?: number;
}

export const DEFAULT_REVISION_MIN_SAMPLES = 5;
export const DEFAULT_REVISION_MIN_SUCCESS_RATE = 0.1;

/**
 * Whether another revision is worth trying: not when at least `minSamples` revisions of this task
 * type are on record and fewer than `minSuccessRate` of them ended in a success, nor when the
 * budget left cannot pay for the round expected. `reason` says why in words (each reason, joined
 * by "; "); null when revising.
 */
export function revisionOutlook(input: RevisionOutlookInput): { readonly revise: boolean; readonly reason: string | null } {
  const minSamples = input.minSamples ?? DEFAULT_REVISION_MIN_SAMPLES;
  const minSuccessRate = input.minSuccessRate ?? DEFAULT_REVISION_MIN_SUCCESS_RATE;
  const reasons: string[] = [];
  const { stats, budgetLeftUsd, roundCostUsd } = input;
  if (stats !== null && stats.samples >= minSamples && stats.samples > 0) {
    const rate = stats.succeeded / stats.samples;
    if (rate < minSuccessRate) {
      reasons.push(`revisions of this task type rarely succeed: ${percent(rate)} of ${round(stats.samples)} recent revisions ended in success, under ${percent(minSuccessRate)}`);
    }
  }
  if (budgetLeftUsd !== null && roundCostUsd !== null && budgetLeftUsd < roundCostUsd) {
    reasons.push(`the budget left ($${usd(budgetLeftUsd)}) cannot pay for another round (about $${usd(roundCostUsd)})`);
  }
  return reasons.length === 0 ? { revise: true, reason: null } : { revise: false, reason: reasons.join('; ') };
}

const percent = (rate: number): string => `${Math.round(rate * 100)}%`;
const round = (count: number): string => (Number.isInteger(count) ? String(count) : count.toFixed(1));
const usd = (amount: number): string => Math.max(0, amount).toFixed(4);
