import { isolatesTone } from '@tierflow/core';
import { inheritHandoffConstraints, upstreamOf, type DelegationPayload } from '@tierflow/protocol';
import type { DelegationDraft } from '../policy/handler.js';
import type { HandoffInterceptor } from '../policy/handoff.js';
import { crossesTaskTypes, factualContent, TONE_ISOLATION_INTERCEPTOR } from './tone-isolation.js';

/**
 * A child delegation as its parent's sends it (docs/protocol.md#handoff-metadata): in its parent's
 * thread unless it names its own, under its parent's handoff constraints field by field unless it
 * sets them. Where it asks for tone isolation and the deployment runs no `tone-isolation`
 * interceptor (which would do it, with its own groups), its upstream work is isolated here with the
 * built-in rule: each task type a tone of its own. Pure.
 */
export function inheritedHandoff(request: DelegationDraft, parent: Pick<DelegationPayload, 'thread_id' | 'handoff'>, interceptors: readonly HandoffInterceptor[]): DelegationDraft {
  const thread = request.thread_id ?? parent.thread_id;
  const handoff = inheritHandoffConstraints(request.handoff, parent.handoff);
  const inherited: DelegationDraft = {
    ...request,
    ...(thread === undefined ? {} : { thread_id: thread }),
    ...(handoff === undefined ? {} : { handoff }),
  };
  const deploymentIsolates = interceptors.some((interceptor) => interceptor.name === TONE_ISOLATION_INTERCEPTOR);
  if (deploymentIsolates || !isolatesTone(false, handoff?.tone_isolation)) return inherited;
  return isolatedUpstream(inherited);
}

function isolatedUpstream(request: DelegationDraft): DelegationDraft {
  const taskData = request.task_data ?? {};
  const upstream = upstreamOf(taskData);
  const own = (taskType: string): string => taskType;
  if (!upstream.some((work) => crossesTaskTypes(work.task_type, request.task_type, own))) return request;
  const isolated = upstream.map((work) => (crossesTaskTypes(work.task_type, request.task_type, own) ? factualContent(work) : work));
  return { ...request, task_data: { ...taskData, upstream: isolated } };
}
