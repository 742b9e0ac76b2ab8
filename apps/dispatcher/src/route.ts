import { checkBoundary, targetParty, type Boundaries } from '@tierflow/core';
import { TierflowError } from '@tierflow/protocol';
import type { Subtask } from '@tierflow/runtime';
import { FALLBACK_ROUTE } from './options.js';

/** Where a subtask goes, and where it may go if that specialist is unavailable. */
export interface Route {
  readonly specialist: string;
  /** In order of preference; never contains `specialist`. */
  readonly alternates: readonly string[];
}

/**
 * Routes a subtask: its `specialist_hint` wins, else the first specialist of its task type's
 * route list, else of the `'*'` list. The alternates are the rest of that route list minus the
 * chosen specialist. Within collaboration boundaries (docs/protocol.md#collaboration-boundaries)
 * a route list yields only the specialists the Dispatcher may hand work to; a hint is the
 * sender's own choice and stays, for the runtime to refuse with the allowed ones if it is outside,
 * as it does a list with none allowed. Pure.
 *
 * @throws TierflowError (permanent, code `no_route`) when no list applies (options without `'*'`).
 */
export function routeSubtask(subtask: Pick<Subtask, 'task_type' | 'specialist_hint'>, routing: Readonly<Record<string, readonly string[]>>, boundaries: Boundaries | null = null): Route {
  const list = routeList(subtask, routing, boundaries);
  const specialist = subtask.specialist_hint ?? list[0];
  if (specialist === undefined) throw noRoute(subtask);
  return { specialist, alternates: list.filter((name) => name !== specialist) };
}

/**
 * A subtask's route list, without repeats: its task type's, else the `'*'` list; within
 * collaboration boundaries only the specialists the Dispatcher may hand work to, unless that
 * leaves none (the runtime then refuses the list's first, naming the allowed ones). Pure.
 */
export function routeList(subtask: Pick<Subtask, 'task_type'>, routing: Readonly<Record<string, readonly string[]>>, boundaries: Boundaries | null = null): readonly string[] {
  // Object.hasOwn: a task_type such as "constructor" must not find Object.prototype's members.
  const own = (key: string): readonly string[] | undefined => (Object.hasOwn(routing, key) ? routing[key] : undefined);
  const listed = (subtask.task_type === undefined ? undefined : own(subtask.task_type)) ?? own(FALLBACK_ROUTE) ?? [];
  const allowed = listed.filter((name) => checkBoundary(boundaries, 'dispatcher', targetParty('fleet', name)).ok);
  return [...new Set(allowed.length > 0 ? allowed : listed)];
}

/** The error for a subtask with nowhere to go (options without `'*'`). */
export function noRoute(subtask: Pick<Subtask, 'task_type'>): TierflowError {
  return TierflowError.permanent(`no route for task_type ${JSON.stringify(subtask.task_type ?? null)} and no "${FALLBACK_ROUTE}" fallback`, { code: 'no_route' });
}
