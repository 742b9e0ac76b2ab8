import { revisionIncrements } from '@tierflow/core';
import { isJsonObject, type OutcomePayload } from '@tierflow/protocol';
import { revisionHistoryKey } from '@tierflow/runtime/policy';

/** The revisions an Architect's outcome says it made (`resources_used.revisions`); 0 when it says none a whole number. Pure. */
export function revisionsOf(outcome: Pick<OutcomePayload, 'resources_used'>): number {
  const value = isJsonObject(outcome.resources_used) ? outcome.resources_used.revisions : undefined;
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/**
 * What a finished run adds to `history/revisions/<task type>` (docs/protocol.md#revisions): the
 * revisions its Architect made, over every attempt, and whether the run then succeeded; null for a
 * run that never revised, which says nothing of revising. Pure.
 */
export function revisionFold(taskType: string, revisions: number, status: OutcomePayload['status']): { readonly key: string; readonly increments: Record<string, number> } | null {
  if (revisions <= 0) return null;
  return { key: revisionHistoryKey(taskType), increments: revisionIncrements(revisions, status === 'success') };
}
