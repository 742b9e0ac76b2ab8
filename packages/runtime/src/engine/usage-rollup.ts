import { addUsage, readUsage, sumUsage, usageOf } from '@tierflow/core';
import type { Usage } from '@tierflow/protocol';
import type { OutcomeDraft, SettledChild } from '../policy/handler.js';
import type { StepState } from './step-store.js';

/**
 * What everything below a parent used so far: the rounds already settled (kept in its step
 * state) and the round settling now. Revisions, re-routes and retries are rounds too, so each
 * one's cost counts. Pure.
 */
export function usageBelow(state: Pick<StepState, 'usage'> | null, received: readonly SettledChild[]): Usage {
  return addUsage(readUsage(state?.usage), sumUsage(received.map((child) => usageOf(child.outcome.payload.resources_used))));
}

/**
 * A parent's outcome draft with `resources_used.usage` made the usage of its hop and everything
 * below it: what its own policy reported there, plus its children's. Pure.
 */
export function withUsageBelow(draft: OutcomeDraft, below: Usage): OutcomeDraft {
  const resources = draft.resources_used ?? {};
  return { ...draft, resources_used: { ...resources, usage: addUsage(usageOf(resources), below) } };
}
