import { beadsRef } from '@tierflow/beads';
import type { AgentIdentity } from '@tierflow/protocol';
import { planWith, type DelegationDraft, type Plan, type SettledRound, type Step, type TierContext, type TierHandler } from '@tierflow/runtime';
import { pinFor, registeredAgents, routeOf } from './agent-pins.js';
import { decideNext } from './decide-next.js';
import { initialMemo, readMemo, recordRound, type DispatchMemo } from './dispatch-memo.js';
import { fleetDraft } from './fleet-draft.js';
import { resolveDispatcherOptions, type DispatcherOptionsInput, type ResolvedDispatcherOptions } from './options.js';
import { planOf } from './plan-of.js';
import { dispatchReport } from './report.js';
import { routingKeys } from './routing-keys.js';
import { assignmentsOf, statusesOf, taskGraphOf } from './task-graph.js';

/**
 * The Routing Dispatcher's policy: splits its delegation into the plan's subtasks, routes each to
 * a specialist, re-routes those whose specialist was unavailable, and aggregates the results.
 * The decisions live in pure functions; this shell reads the context and writes Beads.
 *
 * @throws TierflowError (permanent, code `invalid_config`) for bad options, at once.
 */
export function dispatcherHandler(input: DispatcherOptionsInput = {}): TierHandler {
  const options = resolveDispatcherOptions(input);
  return {
    tier: 'ROUTING_DISPATCHER',
    start: (context) => start(context, options),
    resume: (context, round) => resume(context, round, options),
  };
}

async function start(context: TierContext, options: ResolvedDispatcherOptions): Promise<Step> {
  const { rootId, payload } = context.assignment;
  const decomposed = payload.task_data.plan === undefined && options.decomposer ? await planWith(options.decomposer, context) : null;
  const plan = decomposed ?? planOf(payload);
  const keys = routingKeys(rootId);
  const now = context.now();
  const memo = initialMemo(
    plan.strategy,
    plan.subtasks.map((subtask) => routeOf(subtask, options.routing)),
    plan.subtasks.map((subtask) => now + (subtask.timeout_ms ?? options.fleetTimeoutMs)),
    decomposed,
  );
  const [registered] = await Promise.all([
    registeredAgents(
      context,
      memo.subtasks.map((subtask) => subtask.specialist),
    ),
    context.beads.setMany([
      { key: keys.taskGraph, value: taskGraphOf(plan) },
      { key: keys.assignments, value: assignmentsOf(memo) },
    ]),
  ]);
  return {
    kind: 'delegate',
    children: drafts(
      context,
      plan,
      memo,
      options,
      registered,
      memo.subtasks.map((subtask) => subtask.index),
    ),
    strategy: plan.strategy,
    memo,
  };
}

async function resume(context: TierContext, round: SettledRound, options: ResolvedDispatcherOptions): Promise<Step> {
  const { rootId, payload } = context.assignment;
  const keys = routingKeys(rootId);
  const memo = recordRound(readMemo(round.memo), round.children);
  const decision = decideNext(memo, { retry: options.throttleRetry, now: context.now(), random: Math.random });
  if (decision.kind === 'reroute') {
    context.log.info('sending subtasks again (unavailable or throttled)', { subtasks: decision.subtasks, round: round.round + 1, delay_ms: decision.delayMs });
    const [registered] = await Promise.all([
      registeredAgents(
        context,
        decision.memo.subtasks.map((subtask) => subtask.specialist),
      ),
      context.beads.set(keys.assignments, assignmentsOf(decision.memo)),
    ]);
    return {
      kind: 'delegate',
      children: drafts(context, planIn(decision.memo, payload), decision.memo, options, registered, decision.subtasks, decision.timeouts),
      strategy: decision.memo.strategy,
      memo: decision.memo,
      delayMs: decision.delayMs,
    };
  }
  const { outcome } = dispatchReport(memo, { rounds: round.round + 1, taskGraphRef: beadsRef(keys.taskGraph) });
  await context.beads.set(keys.taskGraph, taskGraphOf(planIn(memo, payload), statusesOf(memo)));
  return { kind: 'outcome', outcome };
}

/** The plan of this dispatch: the decomposer's, kept in the memo, or derived again from the payload (planOf is pure). */
function planIn(memo: DispatchMemo, payload: TierContext['assignment']['payload']): Plan {
  return memo.plan ?? planOf(payload);
}

/** The Fleet delegations of the given subtasks (1-based), each to its memo's current specialist. */
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
      }),
    ];
  });
}
