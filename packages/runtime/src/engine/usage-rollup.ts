import { addUsage, readTally, readUsage, sumUsage, tallyBelow, usageOf, type SubtaskTally } from '@tierflow/core';
import type { Usage } from '@tierflow/protocol';
import type { OutcomeDraft, SettledChild } from '../policy/handler.js';
import type { StepState } from '../steps/step-store.js';

/**
 * What everything below a parent used so far: the rounds already settled (kept in its step
 * state) and the round settling now. Revisions, re-routes and retries are rounds too, so each
 * one's cost counts. Pure.
 */
export function usageBelow(state: Pick<StepState, 'usage'> | null, received: readonly SettledChild[]): Usage {
  return addUsage(readUsage(state?.usage), sumUsage(received.map((child) => usageOf(child.outcome.payload.resources_used))));
}

/**
 * A draft with its hop's own usage: what the policy reported, or, when it reported none (a job
 * stopped or failed by the runtime, a policy that does not report), what the hop's calls settled
 * through its meter (hop-usage.ts), so that no billed call drops out of the run's total. Pure.
 */
export function withHopUsage(draft: OutcomeDraft, spent: Usage): OutcomeDraft {
  const reported = usageOf(draft.resources_used);
  if (isSome(reported) || !isSome(spent)) return draft;
  return { ...draft, resources_used: { ...draft.resources_used, usage: { ...spent } } };
}

const isSome = (usage: Usage) => usage.llm_calls > 0 || usage.tokens_in > 0 || usage.tokens_out > 0 || usage.cost_usd > 0;

/**
 * A parent's outcome draft with `resources_used.usage` made the usage of its hop and everything
 * below it: what its own policy reported there, plus its children's. Pure.
 */
export function withUsageBelow(draft: OutcomeDraft, below: Usage): OutcomeDraft {
  const resources = draft.resources_used ?? {};
  return { ...draft, resources_used: { ...resources, usage: addUsage(usageOf(resources), below) } };
}

/**
 * The subtasks below a parent, as its run's tree shows them: the rounds already settled (kept in
 * its step state) and this round's children, each counted by what it reports below itself, or
 * as one when it delegated nothing; a child that has not answered counts as one not succeeded. Pure.
 */
export function subtasksBelow(state: Pick<StepState, 'subtasks' | 'children'> | null, received: readonly SettledChild[]): SubtaskTally {
  const answers = received.map((child) => child.outcome.payload);
  return tallyBelow(readTally(state?.subtasks), answers, (state?.children.length ?? 0) - received.length);
}

/** A parent's outcome draft with `resources_used.subtasks` set to the tally below it (what a policy forwarded there is replaced). Pure. */
export function withSubtasksBelow(draft: OutcomeDraft, below: SubtaskTally): OutcomeDraft {
  return { ...draft, resources_used: { ...draft.resources_used, subtasks: { ...below } } };
}
