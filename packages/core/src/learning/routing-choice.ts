import { z } from 'zod';
import type { RoutingRecord } from './learning-record.js';
import { type RoutingMode, routingModeSchema, type RoutingReason, routingReasonSchema } from './routing-modes.js';
import { sampleBeta } from './sampling.js';
import type { SpecialistStats } from './specialist-stats.js';

/** What learned routing maximises: success, optionally weighed against cost or latency (`weight` in [0, 1]). */
export const routingObjectiveSchema = z.object({ optimize: z.enum(['success', 'cost', 'latency']), weight: z.number().min(0).max(1) });
export type RoutingObjective = z.infer<typeof routingObjectiveSchema>;
export const DEFAULT_ROUTING_OBJECTIVE: RoutingObjective = { optimize: 'success', weight: 0 };

/** One candidate as the router saw it. `sampled` is its Thompson draw, null when none was made. */
export const routingScoreSchema = z.object({
  specialist: z.string(),
  samples: z.number(),
  success_mean: z.number(),
  sampled: z.number().nullable(),
  cost_usd: z.number().nullable(),
  latency_ms: z.number().nullable(),
  score: z.number(),
});
export type RoutingScore = z.infer<typeof routingScoreSchema>;

export const routingDecisionSchema = z.object({
  mode: routingModeSchema,
  task_type: z.string(),
  chosen: z.string(),
  reason: routingReasonSchema,
  fixed: z.string(),
  learned: z.string().nullable(),
  expected_gain: z.number().nullable(),
  scores: z.array(routingScoreSchema),
});
export type RoutingDecision = z.infer<typeof routingDecisionSchema>;

export interface RouteCandidate {
  readonly specialist: string;
  readonly stats: SpecialistStats | null;
}

export interface ChooseRouteInput {
  readonly taskType: string;
  /** Table order; the first is the fixed pick. */
  readonly candidates: readonly RouteCandidate[];
  readonly mode: RoutingMode;
  readonly objective: RoutingObjective;
  /** [0, 1]: the share of decisions made by sampling; the rest take the best posterior mean. */
  readonly exploration: number;
  /** For a revision: the best posterior mean, reason `revision`. */
  readonly rank?: boolean;
  readonly random: () => number;
}

/**
 * Fewer decayed samples than this and a candidate is untried: it is tried first. Since samples
 * decay, this is also a floor: a candidate left alone fades below it and is tried again, about
 * ln 2 × this ÷ the half-life times per unit of time, which is how the router notices one that got
 * better. One keeps that floor low: with three, the forced tries of three weak candidates took
 * about 8 % of the picks at a half-life of 80 roots, and the best got 90 % in only 69 % of
 * simulated runs (with one, 94 % of the picks, in 99 % of runs).
 */
export const ROUTING_WARM_UP_SAMPLES = 1;

/**
 * Chooses a candidate for one task. Each candidate's success is a Beta(1 + successes, 1 + failures)
 * posterior over its decayed history; its score is that success minus `weight` × its mean cost or
 * latency divided by the largest among the candidates (the objective's, none for `success`).
 *
 * - `fixed`: the first candidate, no scores.
 * - `learned`: an untried candidate (fewer than {@link ROUTING_WARM_UP_SAMPLES} decayed samples)
 *   first, in table order; else with probability `exploration` a Thompson draw per candidate
 *   (`sampled`), otherwise the best posterior mean (`best_mean`). Ties go to table order.
 * - `shadow`: chosen as `fixed`; `learned` and `reason` say what learned would have done.
 * - `rank` (a revision re-routing failed work), in every mode: the best posterior mean, untried
 *   candidates at their prior (`revision`). A revision asks for the next-best by history whatever
 *   the routing mode: the table's first choice has just failed.
 *
 * `expected_gain` (all but plain fixed) is learned's posterior-mean score minus fixed's. Pure: all
 * randomness comes from `random`.
 *
 * @throws RangeError with no candidates.
 */
export function chooseRoute(input: ChooseRouteInput): RoutingDecision {
  const first = input.candidates[0];
  if (first === undefined) throw new RangeError(`no candidates to route task type ${input.taskType} to`);
  const fixed = first.specialist;
  const base = { mode: input.mode, task_type: input.taskType, fixed };
  if (input.mode === 'fixed' && input.rank !== true)
    return { ...base, chosen: fixed, reason: input.candidates.length === 1 ? 'only_candidate' : 'fixed', learned: null, expected_gain: null, scores: [] };

  const means = meanScores(input.candidates, input.objective);
  const pick = learnedPick(input, means);
  const expected_gain = (means[pick.index]?.score ?? 0) - (means[0]?.score ?? 0);
  const learned = input.candidates[pick.index]?.specialist ?? fixed;
  return {
    ...base,
    chosen: input.mode === 'shadow' && input.rank !== true ? fixed : learned,
    reason: pick.reason,
    learned,
    expected_gain,
    scores: pick.scores,
  };
}

/** The part of a decision a learning record carries. */
export function routingRecordOf(decision: RoutingDecision): RoutingRecord {
  return { mode: decision.mode, reason: decision.reason, fixed: decision.fixed, learned: decision.learned, expected_gain: decision.expected_gain, chosen: decision.chosen };
}

function learnedPick(input: ChooseRouteInput, means: readonly RoutingScore[]): { index: number; reason: RoutingReason; scores: RoutingScore[] } {
  if (input.candidates.length === 1) return { index: 0, reason: 'only_candidate', scores: [...means] };
  if (input.rank === true) return { index: best(means), reason: 'revision', scores: [...means] };
  const untried = means.findIndex((score) => score.samples < ROUTING_WARM_UP_SAMPLES);
  if (untried >= 0) return { index: untried, reason: 'untried', scores: [...means] };
  if (input.random() >= input.exploration) return { index: best(means), reason: 'best_mean', scores: [...means] };
  const sampled = means.map((score, index) => {
    const stats = input.candidates[index]?.stats ?? null;
    const { alpha, beta } = posterior(stats);
    const draw = sampleBeta(alpha, beta, input.random);
    return { ...score, sampled: draw, score: score.score - score.success_mean + draw };
  });
  return { index: best(sampled), reason: 'sampled', scores: sampled };
}

function posterior(stats: SpecialistStats | null): { alpha: number; beta: number } {
  const samples = stats?.samples ?? 0;
  const successes = Math.min(samples, stats?.by_status.success ?? 0);
  return { alpha: 1 + successes, beta: 1 + samples - successes };
}

function meanScores(candidates: readonly RouteCandidate[], objective: RoutingObjective): RoutingScore[] {
  const rows = candidates.map(({ specialist, stats }) => {
    const { alpha, beta } = posterior(stats);
    return {
      specialist,
      samples: stats?.samples ?? 0,
      success_mean: alpha / (alpha + beta),
      sampled: null,
      cost_usd: stats?.mean_cost_usd ?? null,
      latency_ms: stats?.latency_ms?.mean ?? null,
    };
  });
  const measure = (row: (typeof rows)[number]): number | null => (objective.optimize === 'cost' ? row.cost_usd : objective.optimize === 'latency' ? row.latency_ms : null);
  const known = rows.map(measure).filter((value): value is number => value !== null);
  const largest = Math.max(0, ...known);
  // An unmeasured candidate weighs as the average of the measured ones: neither favoured nor punished.
  const neutral = known.length > 0 && largest > 0 ? known.reduce((a, b) => a + b, 0) / known.length / largest : 0;
  return rows.map((row) => {
    const value = measure(row);
    const penalty = objective.optimize === 'success' || largest <= 0 ? 0 : value === null ? neutral : value / largest;
    return { ...row, score: row.success_mean - objective.weight * penalty };
  });
}

/** The index of the highest score; the first among equals. */
function best(scores: readonly RoutingScore[]): number {
  let index = 0;
  scores.forEach((score, i) => {
    if (score.score > (scores[index]?.score ?? -Infinity)) index = i;
  });
  return index;
}
