import { beadsRef } from '@tierflow/beads';
import { usageOf } from '@tierflow/core';
import { isTierflowError, TierflowError, type JsonObject, type OutcomePayload } from '@tierflow/protocol';
import {
  passUp,
  planWith,
  recordEscalations,
  recordRevision,
  replanWith,
  weighRevision,
  wholeObjectivePlan,
  withStopNote,
  type OutcomeFields,
  type Planner,
  type RevisionContext,
} from '@tierflow/runtime/policy';
import { startPolicyWorker, type Plan, type PolicyWorkerOptions, type SettledRound, type Step, type TierContext, type TierHandler, type TierWorker } from '@tierflow/runtime';
import { initialMemo, readMemo, type ArchitectMemo } from './architect-memo.js';
import { childOutcomesOf, workArtifactsOfEntries, type ChildOutcomeEntry } from './child-outcomes.js';
import { decideArchitect, mapToPlan, type ArchitectDecision } from './decide.js';
import { dispatcherDraft } from './dispatcher-draft.js';
import { resolveArchitectOptions, type ArchitectOptionsInput, type ResolvedArchitectOptions } from './options.js';
import { readPlan, revisedPlan } from './read-plan.js';
import { carryRound, withCarried } from './learning-carry.js';
import { forwardReport, reaggregatedReport } from './report.js';
import { avoidedSpecialists, revisionContextOf, withAvoided } from './revision-context.js';
import { taskKeys } from './task-keys.js';

/**
 * The Abstract Architect's policy: records the objective in Beads, hands it to the Dispatcher,
 * and when the result falls short re-delegates only the subtasks that failed (with what they depend
 * on, for their input), a bounded number of times. The decisions live in pure functions; this shell reads the context and writes Beads.
 *
 * @throws TierflowError (permanent, code `invalid_config`) for bad options, at once.
 */
export function architectHandler(input: ArchitectOptionsInput = {}): TierHandler {
  const options = resolveArchitectOptions(input);
  return {
    tier: 'ABSTRACT_ARCHITECT',
    start: (context) => start(context, options),
    resume: (context, round) => resume(context, round, options),
  };
}

/** How to run an Architect worker: the host's options, and the policy's. */
export type ArchitectWorkerOptions = ArchitectOptionsInput & PolicyWorkerOptions;

/** Starts an Architect worker on the `architect` queue; resolves once it takes jobs. */
export function startArchitectWorker(options: ArchitectWorkerOptions): Promise<TierWorker> {
  return startPolicyWorker(architectHandler, options);
}

async function start(context: TierContext, options: ResolvedArchitectOptions): Promise<Step> {
  const { rootId, payload } = context.assignment;
  const given = readPlan(payload.task_data);
  const keys = taskKeys(rootId);
  await context.beads.setMany([
    { key: keys.currentObjective, value: { objective: payload.objective, task_type: payload.task_type } },
    { key: keys.constraints, value: payload.constraints },
  ]);
  // The planner runs after the context is in Beads, so it can read what it points at.
  const plan = given ?? (options.planner ? await planWith(options.planner, context) : null);
  return delegate(context, options, given || !plan ? payload.task_data : { ...payload.task_data, plan }, initialMemo(plan));
}

async function resume(context: TierContext, round: SettledRound, options: ResolvedArchitectOptions): Promise<Step> {
  const memo = readMemo(round.memo);
  const child = round.children[0];
  if (!child) throw TierflowError.permanent('the Dispatcher round came back without its child', { code: 'invalid_round' });
  const outcome = child.outcome.payload;
  const childOutcomes = childOutcomesOf(outcome.artifacts);
  const decision = decideArchitect({ status: outcome.status, error_type: outcome.error_type, recoverable: outcome.recoverable, childOutcomes }, memo, options.maxRevisions);
  // The whole objective after a revision, else the Dispatcher's outcome as it came.
  const reported = (): OutcomeFields =>
    memo.revisions > 0 ? reaggregatedReport({ outcome, current: mapToPlan(childOutcomes, memo.delegated), memo, dispatcherId: child.id }).outcome : forwardReport(outcome, memo.revisions);

  switch (decision.kind) {
    case 'pass_up':
      return report(context, withCarried(passUp(outcome), memo), memo.revisions);
    case 'revise': {
      // Another round only when history and the budget left say it is worth one (docs/protocol.md#revisions).
      const verdict = await weighRevision(context, usageOf(outcome.resources_used));
      if (verdict.revise) return revise(context, options, { outcome, childOutcomes, memo, decision });
      context.log.info('not revising', { reason: verdict.reason, status: outcome.status });
      // Judged not worth another round: the Monitor is not asked to try it again either.
      const fields = withStopNote(reported(), `not revised: ${verdict.reason ?? 'not worth another round'}`);
      return report(context, withCarried({ ...fields, recoverable: false }, memo), memo.revisions);
    }
    case 'report':
      return report(context, withCarried(reported(), memo), memo.revisions);
  }
}

/** What a revision is made from: the round that fell short, and the decision to revise it. */
interface RevisionRound {
  readonly outcome: OutcomePayload;
  readonly childOutcomes: ChildOutcomeEntry[] | null;
  readonly memo: ArchitectMemo;
  readonly decision: Extract<ArchitectDecision, { kind: 'revise' }>;
}

/**
 * A revision (docs/protocol.md#revisions): the planner, when there is one, is asked again with the
 * failure in hand, and a plan it returns takes the place of the subtasks being revised; otherwise
 * (no planner, or it leaves the revision to the Architect) those subtasks go again under the same
 * plan, each failed one avoiding the specialists that failed it.
 */
async function revise(context: TierContext, options: ResolvedArchitectOptions, round: RevisionRound): Promise<Step> {
  const { outcome, childOutcomes, memo, decision } = round;
  const { payload } = context.assignment;
  const ran = memo.plan ?? wholeObjectivePlan(payload);
  const kept = [...memo.kept, ...decision.kept];
  const revision = revisionContextOf({
    round: memo.revisions + 1,
    plan: memo.plan,
    ran,
    redo: decision.subtasks,
    kept,
    current: mapToPlan(childOutcomes, memo.delegated),
    delegated: memo.delegated,
    outcome,
  });
  const replanned = options.planner ? await replan(context, options.planner, revision) : null;
  context.log.info('revising the strategy', { subtasks: decision.subtasks, revision: revision.round, status: outcome.status, replanned: replanned !== null });
  recordRevision();
  recordEscalations('ABSTRACT_ARCHITECT');
  // Only the kept children's work: a succeeded subtask sent again for its dependents brings its work anew.
  const keptIds = new Set(decision.kept.map((child) => child.message_id));
  const keptArtifacts = [...memo.kept_artifacts, ...workArtifactsOfEntries(outcome.artifacts, childOutcomes, (entry) => keptIds.has(entry.id))];
  if (replanned) {
    // The new plan stands for the subtasks it was made for; the plan around it keeps its successes.
    const next: ArchitectMemo = {
      ...memo,
      // This round's learning records and surprise go up with the final outcome.
      ...carryRound(memo, outcome),
      revisions: revision.round,
      plan: replanned,
      delegated: replanned.subtasks.map((_, i) => i + 1),
      kept: [],
      kept_artifacts: keptArtifacts,
      outer: [...memo.outer, { plan: memo.plan, kept, replaced: [...decision.subtasks] }],
    };
    return delegate(context, options, { ...payload.task_data, plan: replanned }, next);
  }
  const avoided = withAvoided(ran, avoidedSpecialists(ran, revision.failed));
  // An objective that went down whole stays so, unless a specialist is to be avoided: then it goes as its one-subtask plan.
  const inForce = memo.plan === null && avoided === ran ? null : avoided;
  const next: ArchitectMemo = { ...memo, ...carryRound(memo, outcome), revisions: revision.round, plan: inForce, delegated: [...decision.subtasks], kept, kept_artifacts: keptArtifacts };
  return delegate(context, options, inForce ? { ...payload.task_data, plan: revisedPlan(inForce, decision.subtasks) } : payload.task_data, next);
}

/** The planner's plan for a revision, or null: it left the revision to the Architect, or its plan was invalid (warned). */
async function replan(context: TierContext, planner: Planner, revision: RevisionContext): Promise<Plan | null> {
  try {
    return await replanWith(planner, context, revision);
  } catch (error) {
    if (!isTierflowError(error) || error.code !== 'invalid_plan') throw error;
    context.log.warn('the planner proposed no valid plan for the revision; revising without it', { problem: error.message });
    return null;
  }
}

function delegate(context: TierContext, options: ResolvedArchitectOptions, taskData: JsonObject, memo: ArchitectMemo): Step {
  const keys = taskKeys(context.assignment.rootId);
  return {
    kind: 'delegate',
    children: [
      dispatcherDraft({
        parent: context.assignment.payload,
        taskData,
        timeoutMs: options.dispatcherTimeoutMs,
        contextRefs: [beadsRef(keys.currentObjective), beadsRef(keys.constraints)],
      }),
    ],
    strategy: 'all_success',
    memo,
  };
}

async function report(context: TierContext, outcome: OutcomeFields, revisions: number): Promise<Step> {
  await context.beads.set(taskKeys(context.assignment.rootId).progressSummary, { status: outcome.status, summary: outcome.summary, revisions });
  return { kind: 'outcome', outcome };
}
