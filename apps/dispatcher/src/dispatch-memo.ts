import { aggregationStrategySchema, artifactSchema, evidenceGradeSchema, fastSafeParse, type JsonObject, outcomeStatusSchema, TierflowError } from '@tierflow/protocol';
import { learningRecordSchema, routingDecisionSchema, type RoutingDecision } from '@tierflow/core';
import { planSchema } from '@tierflow/runtime/policy';
import { type Plan, type SettledChild } from '@tierflow/runtime';
import { z } from 'zod';
import type { Route } from './route.js';

/** The latest outcome of one subtask, reduced to what aggregation and the report need. */
export const subtaskResultSchema = z.object({
  message_id: z.string(),
  specialist: z.string(),
  status: outcomeStatusSchema,
  confidence: z.number(),
  /** What the specialist reported, where `confidence` is calibrated against its history; null when not calibrated (or memos written before). */
  reported_confidence: z.number().nullable().default(null),
  error_type: z.string().nullable(),
  error_detail: z.string().nullable(),
  recoverable: z.boolean().nullable(),
  artifacts: z.array(artifactSchema),
  /** The outcome's own words, handed to the subtasks that depend on this one (defaults: memos written before dependencies). */
  summary: z.string().default(''),
  evidence_grade: evidenceGradeSchema.nullable().default(null),
  /** Why the child flagged its outcome a surprise (`surprise_reason`, or a word when it gave none); null when it did not. */
  surprise: z.string().nullable().default(null),
});
export type SubtaskResult = z.infer<typeof subtaskResultSchema>;

/** One subtask's routing state. */
export const subtaskStateSchema = z.object({
  /** 1-based, as in `task_data.subtask_index`. */
  index: z.int().positive(),
  specialist: z.string(),
  /** Still untried, in order of preference. */
  alternates: z.array(z.string()),
  result: subtaskResultSchema.nullable(),
  /** How often this subtask came back `throttled` and was tried again after a back-off. */
  throttles: z.int().nonnegative().default(0),
  /** When the subtask must be done (ms since the epoch): retries after a throttle stay within it. Set when it is sent: null for one waiting on its dependencies. */
  deadline: z.number().nullable().default(null),
  /** Why it was sent again for low confidence (`on_low_confidence: retry`), once: null until then. */
  concern: z.string().nullable().default(null),
  /** How many of its children have settled (re-routes and retries included); absent from memos written before it was counted. */
  attempts: z.int().nonnegative().optional(),
  /** The specialists those children went to, each once, in order: what a revision avoids (docs/protocol.md#revisions). */
  tried: z.array(z.string()).optional(),
  /** How `specialist` was chosen (docs/operations.md#routing-modes); null in memos written before routing decisions. */
  routing: routingDecisionSchema.nullable().default(null),
});
export type SubtaskState = z.infer<typeof subtaskStateSchema>;

/** What the Dispatcher carries between rounds (JSON, through Redis: parsed on the way back). */
export const dispatchMemoSchema = z.object({
  strategy: aggregationStrategySchema,
  subtasks: z.array(subtaskStateSchema).min(1),
  /** Subtask indices in the completion order of their latest results, across rounds. */
  completion: z.array(z.int().positive()),
  /** The plan a decomposer made; null when the delegation's own `task_data` gives it (derived again, not stored twice). */
  plan: planSchema.nullable().default(null),
  /** A learning record per leaf attempt so far, re-routes and retries included, in the order they settled. */
  learning: z.array(learningRecordSchema).default([]),
  /** Why attempts so far surprised against their specialists' history, one line each. */
  surprises: z.array(z.string()).default([]),
});
export type DispatchMemo = z.infer<typeof dispatchMemoSchema>;

/** The memo of a fresh dispatch: one entry per routed subtask, no results yet. */
export function initialMemo(
  strategy: DispatchMemo['strategy'],
  routes: readonly Route[],
  deadlines: readonly (number | null)[] = [],
  plan: Plan | null = null,
  decisions: readonly (RoutingDecision | null)[] = [],
): DispatchMemo {
  return {
    strategy,
    subtasks: routes.map((route, i) => ({
      index: i + 1,
      specialist: route.specialist,
      alternates: [...route.alternates],
      result: null,
      throttles: 0,
      deadline: deadlines[i] ?? null,
      concern: null,
      routing: decisions[i] ?? null,
    })),
    completion: [],
    plan,
    learning: [],
    surprises: [],
  };
}

/** @throws TierflowError (permanent, code `invalid_memo`) when the memo is not one this Dispatcher wrote. */
export function readMemo(memo: JsonObject): DispatchMemo {
  const parsed = fastSafeParse(dispatchMemoSchema, memo);
  if (!parsed.success) throw TierflowError.permanent(`invalid dispatcher memo: ${parsed.error.message}`, { code: 'invalid_memo' });
  return parsed.data;
}

const subtaskIndexSchema = z.object({ subtask_index: z.int().positive() });

/** The subtask a settled child worked on, from the `task_data.subtask_index` its request carried. */
export function subtaskIndexOf(child: Pick<SettledChild, 'id' | 'request'>): number {
  const parsed = fastSafeParse(subtaskIndexSchema, child.request.task_data);
  if (!parsed.success) {
    throw TierflowError.permanent(`child ${child.id} carries no task_data.subtask_index`, { code: 'invalid_round' });
  }
  return parsed.data.subtask_index;
}

/** A settled child's outcome as a subtask result; its specialist is the one the request named. */
export function resultOf(child: Pick<SettledChild, 'id' | 'request' | 'outcome'>): SubtaskResult {
  const { status, summary, confidence, reported_confidence, error_type, error_detail, recoverable, artifacts, evidence_grade, surprise_flag, surprise_reason } = child.outcome.payload;
  return {
    message_id: child.id,
    specialist: child.request.specialist_hint ?? '',
    status,
    confidence,
    reported_confidence: reported_confidence ?? null,
    error_type,
    error_detail,
    recoverable,
    artifacts,
    summary,
    evidence_grade: evidence_grade ?? null,
    surprise: surprise_flag ? (surprise_reason ?? 'flagged a surprise') : null,
  };
}

/** A subtask's counts once one more of its children has settled, sent to `specialist`. */
function attempted(subtask: SubtaskState, specialist: string): Pick<SubtaskState, 'attempts' | 'tried'> {
  const tried = subtask.tried ?? [];
  return { attempts: (subtask.attempts ?? 0) + 1, tried: specialist === '' || tried.includes(specialist) ? tried : [...tried, specialist] };
}

/**
 * Folds a settled round (completion order) into the memo: each child's result becomes its
 * subtask's latest, and that subtask moves to the end of the completion order. Pure.
 *
 * @throws TierflowError (permanent, code `invalid_round`) for a child of no known subtask.
 */
export function recordRound(memo: DispatchMemo, children: readonly Pick<SettledChild, 'id' | 'request' | 'outcome'>[]): DispatchMemo {
  let subtasks = memo.subtasks;
  let completion = memo.completion;
  for (const child of children) {
    const index = subtaskIndexOf(child);
    if (!subtasks.some((subtask) => subtask.index === index)) {
      throw TierflowError.permanent(`child ${child.id} names subtask ${index}, which this plan does not have`, { code: 'invalid_round' });
    }
    const result = resultOf(child);
    subtasks = subtasks.map((subtask) => (subtask.index === index ? { ...subtask, result, ...attempted(subtask, result.specialist) } : subtask));
    completion = [...completion.filter((done) => done !== index), index];
  }
  return { ...memo, subtasks, completion };
}
