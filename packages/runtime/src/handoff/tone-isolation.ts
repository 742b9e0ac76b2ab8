import { isolatesTone } from '@tierflow/core';
import { formatValidationError, upstreamWorkSchema, validateWith, type UpstreamWork } from '@tierflow/protocol';
import { z } from 'zod';
import type { DelegationHandoff, HandoffInterceptor } from '../policy/handoff.js';

/** What the receiving work is: the task type it was given. */
export interface IsolationTarget {
  readonly task_type: string;
  /** Fires when the sender's work is cancelled or out of time. */
  readonly signal: AbortSignal;
}

/**
 * What a receiver gets of upstream work whose task type differs from its own: by default the work
 * without its sender's summary ({@link factualContent}); a model-based rewriter may extract the
 * claims from prose artifacts too.
 */
export type Isolate = (work: UpstreamWork, target: IsolationTarget) => Promise<UpstreamWork> | UpstreamWork;

export interface ToneIsolationOptions {
  /**
   * Task types of one tone, by any name (`{ analytical: ['analyse', 'review'] }`): work handed
   * between two types of one group keeps its words. A type in no group is a group of its own.
   */
  readonly groups?: Readonly<Record<string, readonly string[]>>;
  readonly isolate?: Isolate;
}

export const TONE_ISOLATION_INTERCEPTOR = 'tone-isolation';

const upstreamListSchema = z.array(upstreamWorkSchema);

/**
 * Tone isolation (docs/protocol.md#tone-isolation): when work is handed from one
 * subtask to another of a different task type (a generative draft to an analytical review, say),
 * the receiver gets the work's factual content, not its sender's prose about it. Acts on a
 * delegation's `task_data.upstream` as it is sent, so the message, its audit trail and its
 * receiver all see the isolated form.
 */
export function toneIsolation(options: ToneIsolationOptions = {}): HandoffInterceptor {
  const groupOf = groupsOf(options.groups ?? {});
  const isolate = options.isolate ?? factualContent;
  return {
    name: TONE_ISOLATION_INTERCEPTOR,
    send: async (handoff, next) => {
      if (handoff.kind !== 'delegation' || handoff.payload.task_data.upstream === undefined) return next(handoff);
      // A delegation may opt out of the deployment's isolation (docs/protocol.md#handoff-metadata).
      if (!isolatesTone(true, handoff.payload.handoff?.tone_isolation)) return next(handoff);
      return next(await isolated(handoff, groupOf, isolate));
    },
  };
}

/** The built-in isolation: the artifacts and figures of the work, without its sender's summary. Pure. */
export function factualContent(work: UpstreamWork): UpstreamWork {
  return { ...work, summary: null };
}

/** Whether work of task type `from` handed to work of type `to` crosses task types. Pure. */
export function crossesTaskTypes(from: string, to: string, groupOf: (taskType: string) => string): boolean {
  return groupOf(from) !== groupOf(to);
}

async function isolated(handoff: DelegationHandoff, groupOf: (taskType: string) => string, isolate: Isolate): Promise<DelegationHandoff> {
  const to = handoff.payload.task_type;
  // Work this cannot read is refused rather than passed on with its prose.
  const given = validateWith(upstreamListSchema, handoff.payload.task_data.upstream);
  if (!given.ok) throw new Error(`task_data.upstream is not a list of upstream work: ${given.errors.map(formatValidationError).join('; ')}`);
  // Nothing crosses: the message goes as it came, not re-encoded.
  if (!given.value.some((work) => crossesTaskTypes(work.task_type, to, groupOf))) return handoff;
  const upstream = await Promise.all(
    given.value.map(async (work) => {
      if (!crossesTaskTypes(work.task_type, to, groupOf)) return work;
      const result = validateWith(upstreamWorkSchema, await isolate(work, { task_type: to, signal: handoff.signal }));
      if (!result.ok) throw new Error(`the isolated work of subtask ${work.subtask_index} is invalid: ${result.errors.map(formatValidationError).join('; ')}`);
      return result.value;
    }),
  );
  return { ...handoff, payload: { ...handoff.payload, task_data: { ...handoff.payload.task_data, upstream } } };
}

/** A task type's group: the name of the group that lists it, else the type itself. */
function groupsOf(groups: Readonly<Record<string, readonly string[]>>): (taskType: string) => string {
  const byType = new Map<string, string>();
  for (const [group, types] of Object.entries(groups)) for (const type of types) byType.set(type, `group:${group}`);
  return (taskType) => byType.get(taskType) ?? `type:${taskType}`;
}
