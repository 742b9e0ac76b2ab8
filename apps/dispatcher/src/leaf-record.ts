import { routingRecordOf, type LearningRecord, type RoutingDecision } from '@tierflow/core';
import { usageSchema, type DelegationPayload, type OutcomePayload } from '@tierflow/protocol';
import type { HistoryOf } from './choose-route.js';
import { leafSurprise } from './surprise.js';

/** One leaf attempt as the Dispatcher reports it for learning, and why it surprised (null when it did not). */
export interface LeafReport {
  readonly record: LearningRecord;
  readonly surprise: string | null;
}

/** A settled Fleet child, as much of it as a learning record needs. */
export interface LeafAttempt {
  readonly request: Pick<DelegationPayload, 'task_type' | 'task_data' | 'specialist_hint' | 'target_agent'>;
  readonly outcome: { readonly payload: OutcomePayload };
}

/**
 * The learning record of one leaf attempt (docs/operations.md#routing-modes): its task type and
 * specialist, the model behind it, how it ended, the confidence the specialist reported (before
 * any calibration), its time, tokens and cost, whether it surprised against the specialist's
 * history, and how it was routed. Null for an attempt that says nothing of its specialist: one the
 * Fleet turned away as throttled (it never ran), or one naming no specialist. Pure.
 */
export function leafReport(attempt: LeafAttempt, decision: RoutingDecision | null, history: HistoryOf): LeafReport | null {
  const { payload } = attempt.outcome;
  if (payload.status === 'throttled') return null;
  const taskType = taskTypeOfRequest(attempt.request);
  const specialist = specialistOf(attempt);
  if (specialist === null) return null;
  const surprise = leafSurprise({ specialist, status: payload.status, latency_ms: payload.execution_time_ms }, history(taskType, specialist));
  const usage = usageSchema.safeParse(payload.resources_used.usage);
  const model = payload.resources_used.model;
  return {
    surprise,
    record: {
      task_type: taskType,
      specialist,
      model: typeof model === 'string' && model !== '' ? model : null,
      status: payload.status,
      confidence: payload.reported_confidence ?? payload.confidence,
      latency_ms: payload.execution_time_ms,
      tokens_in: usage.success ? usage.data.tokens_in : 0,
      tokens_out: usage.success ? usage.data.tokens_out : 0,
      cost_usd: usage.success ? usage.data.cost_usd : 0,
      surprise: surprise !== null,
      routing: decision ? routingRecordOf(decision) : null,
    },
  };
}

/** The task type a Fleet delegation was routed under: `task_data.task_type` (the Dispatcher always sets it), else its own. */
export function taskTypeOfRequest(request: Pick<DelegationPayload, 'task_type' | 'task_data'>): string {
  const named = request.task_data.task_type;
  return typeof named === 'string' && named !== '' ? named : request.task_type;
}

/** The specialist that ran: the Fleet's word for it (`resources_used.specialist`), else the one the delegation pinned or named. */
export function specialistOf(attempt: LeafAttempt): string | null {
  const used = attempt.outcome.payload.resources_used.specialist;
  if (typeof used === 'string' && used !== '') return used;
  return attempt.request.target_agent?.agent_id ?? attempt.request.specialist_hint ?? null;
}
