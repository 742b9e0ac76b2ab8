import { blockerSchema, MAX_CLARIFICATION_CHARS, unblockedOf, type Blocker, type TierName, type UnblockNote } from '@tierflow/protocol';
import type { BlockedWait } from './awaiting.js';
import type { DelegateStep, OutcomeDraft, SettledChild } from '../policy/handler.js';
import type { StepState } from '../steps/step-store.js';

/**
 * What a `blocked` outcome a job is about to send waits on: the blockers its blocked children
 * carried up (each with the id of the outcome that first reported it), or, when none did, the
 * job's own blocker, named by its own outcome's id. Pure.
 */
export function blockersBehind(draft: OutcomeDraft, received: readonly SettledChild[], own: { readonly tier: TierName; readonly outcomeId: string }): Blocker[] {
  if (draft.blockers && draft.blockers.length > 0) return draft.blockers.map((blocker) => blockerSchema.parse(blocker));
  const carried = new Map<string, Blocker>();
  for (const { outcome } of received) {
    if (outcome.payload.status !== 'blocked') continue;
    const reported = outcome.payload.blockers?.length
      ? outcome.payload.blockers
      : [{ id: outcome.id, blocker: blockerText(outcome.payload.error_detail, outcome.payload.summary), tier: outcome.source_tier }];
    for (const blocker of reported) carried.set(blocker.id, blocker);
  }
  if (carried.size > 0) return [...carried.values()];
  return [{ id: own.outcomeId, blocker: blockerText(draft.error_detail, draft.summary), tier: own.tier }];
}

/** A blocker as it travels: the error detail (or else the summary), trimmed to what the protocol keeps. */
function blockerText(detail: string | null | undefined, summary: string): string {
  const text = (detail ?? '').trim() || summary.trim() || 'blocked without saying on what';
  return text.length > MAX_CLARIFICATION_CHARS ? `${text.slice(0, MAX_CLARIFICATION_CHARS - 1)}…` : text;
}

/** A `blocked` draft with its blockers spelt out, ready to send; any other draft as it is. Pure. */
export function withBlockers(draft: OutcomeDraft, received: readonly SettledChild[], own: { readonly tier: TierName; readonly outcomeId: string }): OutcomeDraft {
  if (draft.status !== 'blocked') return draft;
  return { ...draft, blockers: blockersBehind(draft, received, own) };
}

/**
 * The round a job sends again once its blockers are lifted: the same children, each carrying every
 * unblock note so far in `task_data.unblocked`, under the same strategy and memo. Pure.
 */
export function unblockedRound(state: Pick<StepState, 'children' | 'strategy' | 'memo'>, notes: readonly UnblockNote[]): DelegateStep {
  const children = [...state.children].sort((a, b) => a.index - b.index).map(({ request }) => withUnblockNotes(request, notes));
  return { kind: 'delegate', children, strategy: state.strategy, memo: state.memo };
}

/** A child's request carrying `notes` (its own first, those it lacks after). Pure. */
export function withUnblockNotes<T extends { readonly task_data?: Readonly<Record<string, unknown>> | undefined }>(request: T, notes: readonly UnblockNote[]): T {
  if (notes.length === 0) return request;
  const taskData = request.task_data ?? {};
  const known = unblockedOf(taskData);
  const fresh = notes.filter((note) => !known.some((had) => had.blocker_id === note.blocker_id));
  return fresh.length === 0 ? request : { ...request, task_data: { ...taskData, unblocked: [...known, ...fresh] } };
}

/** The notes that lift every blocker of a wait, in the order reported; null while any blocker is still on. Pure. */
export function completeUnblocks(wait: Pick<BlockedWait, 'blockers'>, notes: ReadonlyMap<string, string>): UnblockNote[] | null {
  const complete: UnblockNote[] = [];
  for (const { id, blocker } of wait.blockers) {
    const note = notes.get(id);
    if (note === undefined) return null;
    complete.push({ blocker_id: id, blocker, note });
  }
  return complete;
}
