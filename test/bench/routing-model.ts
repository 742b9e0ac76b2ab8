// The Dispatcher's bandit run in this process, no tiers, no Redis: the same chooseRoute on the
// same decayed history (folded as the Monitor folds it), with roots one time unit apart and each root's record landing `lag`
// roots late (as roots in flight make it). Over many seeds it says what a bench run of the real
// tiers should expect, and which of the bandit's parameters a missed target comes from.
import {
  addToSums,
  chooseRoute,
  DEFAULT_ROUTING_OBJECTIVE,
  type DecayedSums,
  foldSpecialistHistory,
  historyIncrements,
  type LearningRecord,
  recentHalfLifeMs,
  seededRandom,
  specialistStats,
} from '@tierflow/core';
import type { HiddenValues, PhaseOf, RoutingPick } from './routing-figures.js';

export interface ModelOptions {
  readonly roots: number;
  /** The routing table's order; the first is the fixed pick. */
  readonly table: readonly string[];
  readonly phaseOf: PhaseOf;
  readonly halfLifeRoots: number;
  readonly exploration: number;
  /** Roots routed after a root and before its record is in the history. */
  readonly lagRoots: number;
  readonly seed: number;
}

/** One root a time unit (1 s) after the other. */
const ROOT_MS = 1000;

/** The picks of one modelled run of `learned` routing. */
export function modelPicks(options: ModelOptions): RoutingPick[] {
  const random = seededRandom(options.seed);
  const luck = seededRandom(options.seed ^ 0x5bd1e995);
  const history = new Map<string, DecayedSums>();
  const recent = new Map<string, DecayedSums>();
  const pending: { readonly at: number; readonly record: LearningRecord; readonly time: number }[] = [];
  const picks: RoutingPick[] = [];
  const halfLifeMs = options.halfLifeRoots * ROOT_MS;
  for (let index = 0; index < options.roots; index++) {
    const now = index * ROOT_MS;
    while (pending.length > 0 && pending[0]!.at <= index) {
      const { record, time } = pending.shift()!;
      // As the Monitor folds it: the long and recent histories, the long one restarted on a change.
      const fold = foldSpecialistHistory(history.get(record.specialist) ?? null, recent.get(record.specialist) ?? null, historyIncrements(record), time, halfLifeMs);
      history.set(record.specialist, addToSums(history.get(record.specialist) ?? null, fold.long, time, halfLifeMs));
      recent.set(record.specialist, addToSums(recent.get(record.specialist) ?? null, fold.recent, time, recentHalfLifeMs(halfLifeMs)));
    }
    const candidates = options.table.map((specialist) => {
      const value = history.get(specialist);
      return { specialist, stats: value ? specialistStats(value, now) : null };
    });
    const decision = chooseRoute({ taskType: 'bench', candidates, mode: 'learned', objective: DEFAULT_ROUTING_OBJECTIVE, exploration: options.exploration, random });
    picks.push({ index, chosen: decision.chosen, reason: decision.reason });
    const values: HiddenValues = options.phaseOf(index);
    const succeeded = luck() < (values[decision.chosen] ?? 0);
    const record: LearningRecord = {
      task_type: 'bench',
      specialist: decision.chosen,
      model: null,
      status: succeeded ? 'success' : 'failed',
      confidence: 0.8,
      latency_ms: 10,
      tokens_in: 0,
      tokens_out: 0,
      cost_usd: 0,
      surprise: false,
      routing: null,
    };
    const lands = index + 1 + options.lagRoots;
    pending.push({ at: lands, record, time: (lands - 0.5) * ROOT_MS });
  }
  return picks;
}

/** The value at quantile `q` (0 … 1) of `values`, nearest rank; null for none. */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
