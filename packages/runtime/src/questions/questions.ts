import { clarificationsOf, MAX_CLARIFICATION_CHARS, questionSchema, type Clarification, type Question, type TierName } from '@tierflow/protocol';
import type { QuestionsWait } from './awaiting.js';
import type { OutcomeDraft, SettledChild } from '../policy/handler.js';
import type { DelegateStep } from '../policy/handler.js';
import type { StepState } from '../steps/step-store.js';

/**
 * The questions behind a `needs_clarification` outcome a job is about to send: those its
 * asking children carried up (each with the id of the outcome that first asked), or, when none
 * did, the job's own question, named by its own outcome's id. Pure.
 */
export function questionsBehind(draft: OutcomeDraft, received: readonly SettledChild[], own: { readonly tier: TierName; readonly outcomeId: string }): Question[] {
  if (draft.questions && draft.questions.length > 0) return draft.questions.map((question) => questionSchema.parse(question));
  const carried = new Map<string, Question>();
  for (const { outcome } of received) {
    if (outcome.payload.status !== 'needs_clarification') continue;
    const asked = outcome.payload.questions?.length
      ? outcome.payload.questions
      : [{ id: outcome.id, question: questionText(outcome.payload.error_detail, outcome.payload.summary), tier: outcome.source_tier }];
    for (const question of asked) carried.set(question.id, question);
  }
  if (carried.size > 0) return [...carried.values()];
  return [{ id: own.outcomeId, question: questionText(draft.error_detail, draft.summary), tier: own.tier }];
}

/** A question as it travels: the error detail (or else the summary), trimmed to what the protocol keeps. */
function questionText(detail: string | null | undefined, summary: string): string {
  const text = (detail ?? '').trim() || summary.trim() || 'a question was asked without any text';
  return text.length > MAX_CLARIFICATION_CHARS ? `${text.slice(0, MAX_CLARIFICATION_CHARS - 1)}…` : text;
}

/** A `needs_clarification` draft with its questions spelt out, ready to send; any other draft as it is. Pure. */
export function withQuestions(draft: OutcomeDraft, received: readonly SettledChild[], own: { readonly tier: TierName; readonly outcomeId: string }): OutcomeDraft {
  if (draft.status !== 'needs_clarification') return draft;
  return { ...draft, questions: questionsBehind(draft, received, own) };
}

/**
 * The round a job sends again once its questions are answered: the same children, each
 * carrying every answer so far in `task_data.clarifications`, under the same strategy and memo.
 * The whole round goes again, not only the child that asked: an answer can change what the
 * others should do. Pure.
 */
export function answeredRound(state: Pick<StepState, 'children' | 'strategy' | 'memo'>, answers: readonly Clarification[]): DelegateStep {
  const children = [...state.children].sort((a, b) => a.index - b.index).map(({ request }) => withClarifications(request, answers));
  return { kind: 'delegate', children, strategy: state.strategy, memo: state.memo };
}

/** A child's request carrying `answers` (its own clarifications first, those it lacks after). Pure. */
export function withClarifications<T extends { readonly task_data?: Readonly<Record<string, unknown>> | undefined }>(request: T, answers: readonly Clarification[]): T {
  if (answers.length === 0) return request;
  const taskData = request.task_data ?? {};
  const known = clarificationsOf(taskData);
  const fresh = answers.filter((answer) => !known.some((clarification) => clarification.question_id === answer.question_id));
  return fresh.length === 0 ? request : { ...request, task_data: { ...taskData, clarifications: [...known, ...fresh] } };
}

/** How long a job has waited for answers or for blocked work so far, all waits together: time its deadline does not count. Pure. */
export function pausedMs(state: Pick<StepState, 'paused_ms' | 'awaiting'> | null, now: number): number {
  if (!state) return 0;
  return (state.paused_ms ?? 0) + (state.awaiting ? Math.max(0, now - state.awaiting.asked_at) : 0);
}

/** The answers that complete a wait, in the order asked; null while any question has none. Pure. */
export function completeAnswers(awaiting: Pick<QuestionsWait, 'questions'>, answers: ReadonlyMap<string, string>): Clarification[] | null {
  const complete: Clarification[] = [];
  for (const { id, question } of awaiting.questions) {
    const answer = answers.get(id);
    if (answer === undefined) return null;
    complete.push({ question_id: id, question, answer });
  }
  return complete;
}
