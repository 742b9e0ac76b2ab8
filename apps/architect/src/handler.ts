import { beadsRef } from '@tierflow/beads';
import { TierflowError, type JsonObject } from '@tierflow/protocol';
import { passUp, planWith, recordEscalations, recordRevision, type OutcomeFields } from '@tierflow/runtime/policy';
import { startPolicyWorker, type Plan, type PolicyWorkerOptions, type SettledRound, type Step, type TierContext, type TierHandler, type TierWorker } from '@tierflow/runtime';
import { initialMemo, readMemo, type ArchitectMemo } from './architect-memo.js';
import { childOutcomesOf, workArtifactsOfEntries } from './child-outcomes.js';
import { decideArchitect, mapToPlan } from './decide.js';
import { dispatcherDraft } from './dispatcher-draft.js';
import { resolveArchitectOptions, type ArchitectOptionsInput, type ResolvedArchitectOptions } from './options.js';
import { readPlan, revisedPlan } from './read-plan.js';
import { forwardReport, reaggregatedReport } from './report.js';
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

  switch (decision.kind) {
    case 'pass_up':
      return report(context, passUp(outcome), memo.revisions);
    case 'revise': {
      context.log.info('revising the strategy', { subtasks: decision.subtasks, revision: memo.revisions + 1, status: outcome.status });
      recordRevision();
      recordEscalations('ABSTRACT_ARCHITECT');
      // Only the kept children's work: a succeeded subtask sent again for its dependents brings its work anew.
      const keptIds = new Set(decision.kept.map((kept) => kept.message_id));
      const next: ArchitectMemo = {
        ...memo,
        revisions: memo.revisions + 1,
        delegated: [...decision.subtasks],
        kept: [...memo.kept, ...decision.kept],
        kept_artifacts: [...memo.kept_artifacts, ...workArtifactsOfEntries(outcome.artifacts, childOutcomes, (entry) => keptIds.has(entry.id))],
      };
      return delegate(context, options, revisedTaskData(context.assignment.payload.task_data, memo.plan, decision.subtasks), next);
    }
    case 'report': {
      const fields = decision.reaggregate
        ? reaggregatedReport({ outcome, current: mapToPlan(childOutcomes, memo.delegated), memo, dispatcherId: child.id }).outcome
        : forwardReport(outcome, memo.revisions);
      return report(context, fields, memo.revisions);
    }
  }
}

/** Without a plan the one objective goes again as it was; with one, only the chosen subtasks, same strategy. */
function revisedTaskData(taskData: JsonObject, plan: Plan | null, subtasks: readonly number[]): JsonObject {
  return plan ? { ...taskData, plan: revisedPlan(plan, subtasks) } : taskData;
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
