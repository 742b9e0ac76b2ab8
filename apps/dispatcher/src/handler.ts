import { beadsRef } from '@tierflow/beads';
import type { AgentIdentity } from '@tierflow/protocol';
import { planWith, recordEscalations } from '@tierflow/runtime/policy';
import { startPolicyWorker, type DelegationDraft, type Plan, type PolicyWorkerOptions, type SettledRound, type Step, type TierContext, type TierHandler, type TierWorker } from '@tierflow/runtime';
import { pinFor, registeredAgents } from './agent-pins.js';
import { historyWanted, routeWithHistory, taskTypeOf, type RoutingSettings } from './choose-route.js';
import { decideNext } from './decide-next.js';
import { releaseDependents, startingSubtasks, upstreamFor } from './dependencies.js';
import { initialMemo, readMemo, recordRound, type DispatchMemo } from './dispatch-memo.js';
import { fleetDraft } from './fleet-draft.js';
import { readHistory } from './history.js';
import { learnFromRound, reroutedIn, reroutePairs, rerouteRound, routingDecisions, settledPairs } from './learning-round.js';
import { resolveDispatcherOptions, type DispatcherOptionsInput, type ResolvedDispatcherOptions } from './options.js';
import { checkedCompositions, knownSpecialists, planOf } from './plan-of.js';
import { dispatchReport } from './report.js';
import { routingKeys } from './routing-keys.js';
import { assignmentsOf, statusesOf, taskGraphOf } from './task-graph.js';

/**
 * The Routing Dispatcher's policy: splits its delegation into the plan's subtasks, routes each to
 * a specialist, sends a dependent subtask once what it depends on has succeeded (with that work),
 * re-routes those whose specialist was unavailable, and aggregates the results once every subtask
 * has one.
 * The decisions live in pure functions; this shell reads the context and writes Beads.
 *
 * @throws TierflowError (permanent, code `invalid_config`) for bad options, at once.
 */
export function dispatcherHandler(input: DispatcherOptionsInput = {}): TierHandler {
  const options = resolveDispatcherOptions(input);
  const settings: RoutingSettings = { mode: options.routingMode, objective: options.routingObjective, exploration: options.exploration, random: options.random };
  return {
    tier: 'ROUTING_DISPATCHER',
    start: (context) => start(context, options, settings),
    resume: (context, round) => resume(context, round, options, settings),
  };
}

/** How to run a Dispatcher worker: the host's options, and the policy's. */
export type DispatcherWorkerOptions = DispatcherOptionsInput & PolicyWorkerOptions;

/** Starts a Dispatcher worker on the `dispatcher` queue; resolves once it takes jobs. */
export function startDispatcherWorker(options: DispatcherWorkerOptions): Promise<TierWorker> {
  return startPolicyWorker(dispatcherHandler, options);
}

async function start(context: TierContext, options: ResolvedDispatcherOptions, settings: RoutingSettings): Promise<Step> {
  const { rootId, payload } = context.assignment;
  const decomposed = payload.task_data.plan === undefined && options.decomposer ? await planWith(options.decomposer, context) : null;
  // A composition may draw only on the specialists the routes name (docs/protocol.md#attestations).
  const plan = checkedCompositions(decomposed ?? planOf(payload), knownSpecialists(options.routing));
  const keys = routingKeys(rootId);
  const now = context.now();
  // Only the subtasks that depend on nothing go now; a dependent's deadline is set when it is sent.
  const first = startingSubtasks(plan);
  // Every subtask is routed now, dependents too, from one read of the history its routing weighs.
  const table = { routing: options.routing, boundaries: options.boundaries };
  const wanted = plan.subtasks.flatMap((subtask) => historyWanted(subtask, table, settings.mode).map((specialist) => ({ taskType: taskTypeOf(subtask), specialist })));
  const history = await readHistory(context, wanted, now);
  const routed = plan.subtasks.map((subtask) => routeWithHistory(subtask, table, settings, history));
  const memo = initialMemo(
    plan.strategy,
    routed.map(({ route }) => route),
    plan.subtasks.map((subtask, i) => (first.includes(i + 1) ? now + (subtask.timeout_ms ?? options.fleetTimeoutMs) : null)),
    decomposed,
    routed.map(({ decision }) => decision),
  );
  const [registered] = await Promise.all([
    registeredAgents(
      context,
      memo.subtasks.map((subtask) => subtask.specialist),
      options.lockedAgents,
    ),
    context.beads.setMany([
      { key: keys.taskGraph, value: taskGraphOf(plan) },
      { key: keys.assignments, value: assignmentsOf(memo) },
    ]),
  ]);
  const children = drafts(context, plan, memo, options, registered, first);
  return { kind: 'delegate', children, strategy: plan.strategy, memo, decisions: routingDecisions(memo, children) };
}

async function resume(context: TierContext, round: SettledRound, options: ResolvedDispatcherOptions, settings: RoutingSettings): Promise<Step> {
  const { rootId, payload } = context.assignment;
  const keys = routingKeys(rootId);
  const sentWith = readMemo(round.memo);
  const recorded = recordRound(sentWith, round.children);
  const plan = planIn(recorded, payload);
  const now = context.now();
  const decision = decideNext(recorded, { retry: options.throttleRetry, now, random: Math.random });
  const next = decision.kind === 'reroute' ? decision : { subtasks: [], memo: recorded, delayMs: 0, timeouts: {} };
  // One read of history a round: the settled leaves are judged by it, and the re-routed subtasks choose by it.
  const rerouted = reroutedIn(recorded, next.memo, next.subtasks);
  const history = await readHistory(context, [...settledPairs(round.children), ...reroutePairs(plan, next.memo, rerouted, settings)], now);
  const again = { ...next, memo: rerouteRound(plan, learnFromRound(next.memo, sentWith, round.children, history), rerouted, settings, history) };
  const released = releaseDependents(plan, again.memo, {
    resending: new Set(again.subtasks),
    now,
    delayMs: again.delayMs,
    fleetTimeoutMs: options.fleetTimeoutMs,
    dispatchId: context.assignment.id,
  });
  const memo = released.memo;
  if (released.blocked.length > 0) context.log.info('not running subtasks whose dependencies failed', { subtasks: released.blocked });
  const sending = [...again.subtasks, ...released.ready].sort((a, b) => a - b);
  if (sending.length > 0) {
    if (again.subtasks.length > 0) {
      context.log.info('sending subtasks again (unavailable, throttled or of low confidence)', { subtasks: again.subtasks, round: round.round + 1, delay_ms: again.delayMs });
      recordEscalations('ROUTING_DISPATCHER', again.subtasks.length);
    }
    if (released.ready.length > 0) context.log.info('sending subtasks whose dependencies succeeded', { subtasks: released.ready, round: round.round + 1 });
    const [registered] = await Promise.all([
      registeredAgents(
        context,
        memo.subtasks.map((subtask) => subtask.specialist),
        options.lockedAgents,
      ),
      decision.kind === 'reroute' ? context.beads.set(keys.assignments, assignmentsOf(memo)) : Promise.resolve(),
    ]);
    const children = drafts(context, plan, memo, options, registered, sending, { ...again.timeouts, ...released.timeouts });
    return { kind: 'delegate', children, strategy: memo.strategy, memo, delayMs: again.delayMs, decisions: routingDecisions(memo, children) };
  }
  // Every subtask has its result now: sent and answered, or not run for a failed dependency.
  const { outcome } = dispatchReport(memo, { rounds: round.round + 1, taskGraphRef: beadsRef(keys.taskGraph) });
  await context.beads.set(keys.taskGraph, taskGraphOf(plan, statusesOf(memo)));
  return { kind: 'outcome', outcome };
}

/** The plan of this dispatch: the decomposer's, kept in the memo, or derived again from the payload (planOf is pure). */
function planIn(memo: DispatchMemo, payload: TierContext['assignment']['payload']): Plan {
  return memo.plan ?? planOf(payload);
}

/** The Fleet delegations of the given subtasks (1-based), each to its memo's current specialist, with the work of what it depends on. */
function drafts(
  context: TierContext,
  plan: Plan,
  memo: DispatchMemo,
  options: ResolvedDispatcherOptions,
  registered: ReadonlyMap<string, AgentIdentity>,
  indices: readonly number[],
  timeouts: Readonly<Record<number, number>> = {},
): DelegationDraft[] {
  const taskGraphRef = beadsRef(routingKeys(context.assignment.rootId).taskGraph);
  return indices.flatMap((index) => {
    const subtask = plan.subtasks[index - 1];
    const state = memo.subtasks.find((entry) => entry.index === index);
    if (!subtask || !state) return [];
    const timeout = timeouts[index];
    return [
      fleetDraft({
        subtask: timeout === undefined ? subtask : { ...subtask, timeout_ms: Math.max(1, Math.floor(timeout)) },
        index,
        total: plan.subtasks.length,
        specialist: state.specialist,
        parent: context.assignment.payload,
        fleetTimeoutMs: options.fleetTimeoutMs,
        taskGraphRef,
        targetAgent: pinFor(subtask, state.specialist, registered),
        planPolicy: plan.error_policy,
        concern: state.concern,
        upstream: upstreamFor(plan, memo, index),
        routing: state.routing,
      }),
    ];
  });
}
