import type { Usage } from '@tierflow/protocol';
import { budgetLeft, type BudgetStanding } from './budget.js';
import { revisionOutlook, type RevisionStats } from './learning/revision-outlook.js';

/** What a tier weighs before it sends work round again (a revision, a reset). */
export interface ReviseOrStopInput {
  /** The decayed record of revisions of this task type; null with none. */
  readonly stats: RevisionStats | null;
  /** The run's budget as it stands; null when it cannot be told. */
  readonly standing: BudgetStanding | null;
  /** What the round to send again used: the estimate of another; null when unknown. */
  readonly round: Usage | null;
}

/**
 * Whether to go round again (docs/protocol.md#revisions): not when revisions of this task type
 * rarely succeed, nor when the budget left, by any of its limits, cannot pay for another round
 * like the last (cost: core's `revisionOutlook`; tokens and model calls the same way). `reason`
 * names every cause, joined by "; "; null when going on. Pure.
 */
export function reviseOrStop(input: ReviseOrStopInput): { readonly revise: boolean; readonly reason: string | null } {
  const { stats, standing, round } = input;
  const left = standing ? budgetLeft(standing) : null;
  const outlook = revisionOutlook({ stats, budgetLeftUsd: left?.cost_usd ?? null, roundCostUsd: round?.cost_usd ?? null });
  const reasons = outlook.reason === null ? [] : [outlook.reason];
  if (left && round) {
    const tokens = round.tokens_in + round.tokens_out;
    if (left.tokens !== null && left.tokens < tokens) reasons.push(`the budget left (${left.tokens} tokens) cannot pay for another round (about ${tokens} tokens)`);
    if (left.llm_calls !== null && left.llm_calls < round.llm_calls) {
      reasons.push(`the budget left (${calls(left.llm_calls)}) cannot pay for another round (about ${calls(round.llm_calls)})`);
    }
  }
  return reasons.length === 0 ? { revise: true, reason: null } : { revise: false, reason: reasons.join('; ') };
}

const calls = (count: number): string => `${count} model ${count === 1 ? 'call' : 'calls'}`;
