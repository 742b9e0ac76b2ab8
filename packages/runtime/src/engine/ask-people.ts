import type { Clarification } from '@tierflow/protocol';
import { inFlightTtlMs } from '../config/retention.js';
import { outcomeMessageId } from '../messages/ids.js';
import type { OutcomeDraft, SettledChild } from '../policy/handler.js';
import { FencedBatch } from '../redis/fenced-batch.js';
import type { Engine, Pass } from './pass.js';
import type { StepState } from '../steps/step-store.js';
import { usageBelow } from './usage-rollup.js';
import { wakeJob } from './wake-job.js';
import { completeAnswers, questionsBehind } from '../questions/questions.js';
import type { QuestionsWait } from '../questions/awaiting.js';
import { readAnswers, type WaitingRun } from '../questions/question-records.js';
import { questionsAsked, questionWaited } from '../observability/tier-metrics.js';

/** What reads a run's answers: Redis, where they are kept, and the deployment's signing settings to check them. */
type AnswerReads = Pick<Engine, 'redis' | 'keys' | 'runtime' | 'log'>;

/**
 * Puts a round's questions to a person. One fenced MULTI keeps the wait in the job's step state
 * (with the round's usage, counted now), publishes the questions for clients, and records them
 * on the audit trail; then the job waits in BullMQ's delayed set until the wait ends. An answer
 * wakes it sooner (see TierflowClient.answer); one that landed before the job was delayed could
 * not, so the job looks once more after.
 */
export async function askPeople(
  engine: AnswerReads & Pick<Engine, 'tier' | 'party' | 'clock' | 'steps' | 'audit' | 'writer' | 'notices'>,
  pass: Pass,
  state: StepState,
  draft: OutcomeDraft,
  received: readonly SettledChild[],
): Promise<void> {
  const { job, assignment } = pass;
  const now = engine.clock.now();
  const questions = questionsBehind(draft, received, { tier: engine.tier, outcomeId: outcomeMessageId(assignment.id) });
  // The questions are kept once, beside the draft: the outcome sent without answers gets them back.
  const { questions: _kept, ...asked } = draft;
  const awaiting: QuestionsWait = { asked_at: now, until: now + engine.runtime.answerWaitMs, questions, draft: { ...asked, status: 'needs_clarification' } };
  const { watchdog: _settled, ...rest } = state;
  const next: StepState = { ...rest, awaiting, usage: usageBelow(state, received) };
  const view: WaitingRun = { root_id: assignment.rootId, asked_at: now, until: awaiting.until, questions };
  const { keys, party } = engine;
  const batch = new FencedBatch();
  engine.steps.write(batch, job.id!, next);
  batch.set(keys.questions(assignment.rootId), JSON.stringify(view), 'PX', inFlightTtlMs(engine.runtime));
  engine.audit.outcomesReceived(batch, assignment, received);
  engine.audit.questionsAsked(batch, assignment.rootId, questions);
  // The round settled: its watchdog has nothing left to watch.
  if (state.watchdog) batch.zrem(keys.watchdogs(party), state.watchdog);
  await engine.writer.commit(batch, pass.lock);
  questionsAsked(engine.tier, questions.length);
  engine.notices?.questionsAsked(assignment.rootId, { askedAt: now, until: awaiting.until, questions }, { status: 'needs_clarification', summary: draft.summary, cascade_check: draft.cascade_check });
  pass.span.addEvent('waiting for answers', { questions: questions.length, until: new Date(awaiting.until).toISOString() });
  engine.log.info('waiting for answers', { root: assignment.rootId, questions: questions.length });
  await waitForAnswers(engine, pass, awaiting);
}

export type WaitRead = { readonly kind: 'complete'; readonly answers: readonly Clarification[] } | { readonly kind: 'expired' } | { readonly kind: 'pending' };

/**
 * A waiting job, woken: its answers if every question has one, else whether its wait is over;
 * woken early (a partial answer, a promotion by hand), it goes back to waiting until the end.
 */
export async function readWait(engine: AnswerReads & Pick<Engine, 'clock' | 'tier'>, pass: Pass, awaiting: QuestionsWait): Promise<WaitRead> {
  const answers = await answersFor(engine, pass.assignment.rootId, awaiting);
  const now = engine.clock.now();
  if (answers) {
    pass.span.addEvent('answers received', { questions: answers.length });
    questionWaited(engine.tier, (now - awaiting.asked_at) / 1000);
    return { kind: 'complete', answers };
  }
  if (now >= awaiting.until) {
    questionWaited(engine.tier, (now - awaiting.asked_at) / 1000);
    return { kind: 'expired' };
  }
  await waitForAnswers(engine, pass, awaiting);
  return { kind: 'pending' };
}

/** Delays the job until its wait ends; answers that came meanwhile wake it at once. */
async function waitForAnswers(engine: AnswerReads, pass: Pass, awaiting: QuestionsWait): Promise<void> {
  await pass.job.moveToDelayed(awaiting.until, pass.lock.token);
  if (await answersFor(engine, pass.assignment.rootId, awaiting)) await wakeJob(pass.job);
}

async function answersFor(engine: AnswerReads, rootId: string, awaiting: QuestionsWait): Promise<Clarification[] | null> {
  const read = readAnswers(await engine.redis.hgetall(engine.keys.answers(rootId)), engine.runtime.signing, awaiting.asked_at);
  for (const { field, reason } of read.ignored) engine.log.warn('ignored an answer', { root: rootId, question: field, reason });
  return completeAnswers(awaiting, read.answers);
}
