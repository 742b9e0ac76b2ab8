import { chooseRoute, type Boundaries, type RoutingDecision, type RoutingMode, type RoutingObjective, type SpecialistStats } from '@tierflow/core';
import type { Subtask } from '@tierflow/runtime';
import { DEFAULT_TASK_TYPE } from './plan-of.js';
import { noRoute, routeList, type Route } from './route.js';

/** How the Dispatcher chooses among candidates (docs/operations.md#routing-modes). */
export interface RoutingSettings {
  readonly mode: RoutingMode;
  readonly objective: RoutingObjective;
  readonly exploration: number;
  /** Uniform in [0, 1): the bandit's only source of chance. */
  readonly random: () => number;
}

/** A specialist's history on a task type, decayed to now; null without any. */
export type HistoryOf = (taskType: string, specialist: string) => SpecialistStats | null;

/** Where a subtask goes, and the decision that sent it there. */
export interface RoutedSubtask {
  readonly route: Route;
  readonly decision: RoutingDecision;
}

/** The routing table and the boundaries routes are kept within. */
export interface RouteTable {
  readonly routing: Readonly<Record<string, readonly string[]>>;
  readonly boundaries: Boundaries | null;
}

/** The task type a subtask is routed and learned under: its own, else the default of a subtask without one. */
export function taskTypeOf(subtask: Pick<Subtask, 'task_type'>): string {
  return subtask.task_type ?? DEFAULT_TASK_TYPE;
}

/** What routing a subtask comes to before any history is read: a specialist the plan insists on, or candidates to choose among. */
type Candidates = { readonly kind: 'named'; readonly route: Route } | { readonly kind: 'choose'; readonly candidates: readonly string[]; readonly rank: boolean };

/**
 * The candidates of a subtask (pure):
 * - a pinned agent (`target_agent`) goes there and nowhere else;
 * - a `specialist_hint` (mode `require`, the default) goes to the hint, the route list's others as
 *   alternates, even in a revision that avoids it: the plan insists, and a candidate the plan did
 *   not name may be one the Fleet does not serve;
 * - otherwise the route list, a `prefer` hint first, less `avoid_specialists` unless that leaves
 *   none; a subtask that avoids specialists is a revision's, ranked by history (`rank`).
 *
 * @throws TierflowError (permanent, code `no_route`) when no list applies (options without `'*'`).
 */
function candidatesOf(subtask: Subtask, table: RouteTable): Candidates {
  if (subtask.target_agent) return { kind: 'named', route: { specialist: subtask.target_agent.agent_id, alternates: [] } };
  const list = routeList(subtask, table.routing, table.boundaries);
  const hint = subtask.specialist_hint;
  const avoid = new Set(subtask.avoid_specialists ?? []);
  const ordered = hint === undefined ? list : [hint, ...list.filter((name) => name !== hint)];
  const kept = ordered.filter((name) => !avoid.has(name));
  const required = hint !== undefined && subtask.specialist_hint_mode !== 'prefer';
  if (required) return { kind: 'named', route: { specialist: hint, alternates: list.filter((name) => name !== hint) } };
  if (ordered.length === 0) throw noRoute(subtask);
  return { kind: 'choose', candidates: kept.length > 0 ? kept : ordered, rank: avoid.size > 0 };
}

/** The specialists whose history routing `subtask` weighs; none when the plan names its specialist, or the table decides alone (`fixed`, no revision). */
export function historyWanted(subtask: Subtask, table: RouteTable, mode: RoutingMode): readonly string[] {
  const found = candidatesOf(subtask, table);
  if (found.kind === 'named' || (mode === 'fixed' && !found.rank)) return [];
  return found.candidates;
}

/**
 * Routes a subtask (pure): where the plan names the specialist, there, reason `hint`; otherwise
 * {@link chooseRoute} over its candidates in the configured mode. A revision's subtask (one that
 * avoids specialists) is ranked by history in every mode, reason `revision`: the table's pick has
 * failed it already. The other candidates, in table order, are the alternates.
 *
 * @throws TierflowError (permanent, code `no_route`) when no list applies.
 */
export function routeWithHistory(subtask: Subtask, table: RouteTable, settings: RoutingSettings, history: HistoryOf): RoutedSubtask {
  const taskType = taskTypeOf(subtask);
  const found = candidatesOf(subtask, table);
  if (found.kind === 'named') return { route: found.route, decision: named(settings.mode, taskType, found.route.specialist) };
  return choose(taskType, found.candidates, found.rank, settings, history);
}

/**
 * Moves a re-routed subtask (its specialist unavailable, or throttled with alternates left) to the
 * best of what is left, chosen as its first route was: `candidates` in table order, the one
 * `decideNext` moved to first; the decision's reason is `reroute`. Pure.
 */
export function rerouteWithHistory(subtask: Subtask, candidates: readonly string[], settings: RoutingSettings, history: HistoryOf): RoutedSubtask {
  const routed = choose(taskTypeOf(subtask), candidates, (subtask.avoid_specialists ?? []).length > 0, settings, history);
  // Said as a re-route, so that the routing accuracy counts first choices only.
  return { ...routed, decision: { ...routed.decision, reason: 'reroute' } };
}

function choose(taskType: string, candidates: readonly string[], rank: boolean, settings: RoutingSettings, history: HistoryOf): RoutedSubtask {
  // A revision ranks by history whatever the mode (chooseRoute's `rank`).
  const decision = chooseRoute({
    taskType,
    candidates: candidates.map((specialist) => ({ specialist, stats: history(taskType, specialist) })),
    mode: settings.mode,
    objective: settings.objective,
    exploration: settings.exploration,
    rank,
    random: settings.random,
  });
  return { route: { specialist: decision.chosen, alternates: candidates.filter((name) => name !== decision.chosen) }, decision };
}

/** The decision of a subtask whose plan names its specialist. */
function named(mode: RoutingMode, taskType: string, specialist: string): RoutingDecision {
  return { mode, task_type: taskType, chosen: specialist, reason: 'hint', fixed: specialist, learned: null, expected_gain: null, scores: [] };
}

/** A decision in a line, for the audit trail: `learned: b (sampled); fixed a; expected gain +0.120`. Pure. */
export function decisionLine(decision: RoutingDecision): string {
  const parts = [`${decision.mode}: ${decision.chosen} (${decision.reason})`];
  if (decision.fixed !== decision.chosen) parts.push(`fixed ${decision.fixed}`);
  if (decision.learned !== null && decision.learned !== decision.chosen) parts.push(`learned ${decision.learned}`);
  if (decision.expected_gain !== null) parts.push(`expected gain ${decision.expected_gain >= 0 ? '+' : ''}${decision.expected_gain.toFixed(3)}`);
  return parts.join('; ');
}
