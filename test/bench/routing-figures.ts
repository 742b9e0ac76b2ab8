// The figures of bench:routing, from the picks a run made and the hidden values only the bench
// knows: the share of picks that went to the best candidate, regret against an oracle, and how
// long the router took to move after the best one changed. Pure.

/** Success probability per specialist: the hidden values of one phase. */
export type HiddenValues = Readonly<Record<string, number>>;

/** What one root's routing chose, by the root's place in the run. */
export interface RoutingPick {
  readonly index: number;
  readonly chosen: string;
  /** The decision's reason as the learning record gives it (`untried`, `sampled`, …), null when unknown. */
  readonly reason: string | null;
}

/** The hidden values in force for the root at `index`. */
export type PhaseOf = (index: number) => HiddenValues;

/** The specialist with the highest success probability (the first among equals, in key order). */
export function bestOf(values: HiddenValues): string {
  let best: string | null = null;
  for (const [name, chance] of Object.entries(values)) if (best === null || chance > values[best]!) best = name;
  if (best === null) throw new RangeError('no candidates');
  return best;
}

/** What the oracle expects minus what the chosen one does: the best probability minus the chosen's. */
export function regretOf(values: HiddenValues, chosen: string): number {
  const chance = values[chosen];
  if (chance === undefined) throw new RangeError(`${chosen} is not a candidate`);
  return values[bestOf(values)]! - chance;
}

/** One window of consecutive roots. */
export interface PickWindow {
  /** First and last root index, inclusive. */
  readonly from: number;
  readonly to: number;
  readonly picks: number;
  /** Picks of the best candidate of each pick's phase, as a share of the window's picks; null with none. */
  readonly bestShare: number | null;
  /** Regret summed over the window's picks. */
  readonly regret: number;
}

/** The picks in windows of `size` roots (the last may be shorter), over roots 0 … roots − 1. */
export function pickWindows(picks: readonly RoutingPick[], phaseOf: PhaseOf, roots: number, size: number): PickWindow[] {
  const windows: PickWindow[] = [];
  for (let from = 0; from < roots; from += size) {
    const to = Math.min(roots, from + size) - 1;
    const inside = picks.filter((pick) => pick.index >= from && pick.index <= to);
    const best = inside.filter((pick) => pick.chosen === bestOf(phaseOf(pick.index))).length;
    windows.push({ from, to, picks: inside.length, bestShare: inside.length === 0 ? null : best / inside.length, regret: regretSum(inside, phaseOf) });
  }
  return windows;
}

/** Regret summed over the picks (those with index < `before` when given). */
export function cumulativeRegret(picks: readonly RoutingPick[], phaseOf: PhaseOf, before = Infinity): number {
  return regretSum(
    picks.filter((pick) => pick.index < before),
    phaseOf,
  );
}

/** The share of picks of roots `from` … `to` (inclusive) that went to their phase's best; null with none. */
export function bestShareBetween(picks: readonly RoutingPick[], phaseOf: PhaseOf, from: number, to: number): number | null {
  const inside = picks.filter((pick) => pick.index >= from && pick.index <= to);
  if (inside.length === 0) return null;
  return inside.filter((pick) => pick.chosen === bestOf(phaseOf(pick.index))).length / inside.length;
}

/**
 * How many roots after the change at `change` the router took to move to `target`: the count up
 * to the end of the first window of `window` consecutive roots, all after the change, in which
 * `target` got at least half the picks. Null when no such window comes before the run ends.
 */
export function rootsToMove(picks: readonly RoutingPick[], change: number, target: string, window: number): number | null {
  const chosen = new Map(picks.map((pick) => [pick.index, pick.chosen]));
  const last = Math.max(-1, ...picks.map((pick) => pick.index));
  for (let end = change + window - 1; end <= last; end++) {
    let hits = 0;
    for (let index = end - window + 1; index <= end; index++) if (chosen.get(index) === target) hits++;
    if (hits * 2 >= window) return end - change + 1;
  }
  return null;
}

/** How many picks of roots `from` … `to` had each reason, among those that did not go to the best. */
export function missedByReason(picks: readonly RoutingPick[], phaseOf: PhaseOf, from: number, to: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const pick of picks) {
    if (pick.index < from || pick.index > to || pick.chosen === bestOf(phaseOf(pick.index))) continue;
    const reason = pick.reason ?? 'unknown';
    counts[reason] = (counts[reason] ?? 0) + 1;
  }
  return counts;
}

function regretSum(picks: readonly RoutingPick[], phaseOf: PhaseOf): number {
  return picks.reduce((sum, pick) => sum + regretOf(phaseOf(pick.index), pick.chosen), 0);
}
