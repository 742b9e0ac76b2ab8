import type { RedisClient } from '@tierflow/beads';
import { controlKeys } from '../redis/keys.js';
import type { RunNode, RunQuestion } from '../audit/run-tree-merge.js';
import type { SigningConfig } from '../security/signing-keys.js';
import { readAnswers, readWaitingRun } from './question-records.js';
import { readUnblocks } from './blocked-records.js';
import { runStatus, type RunStatus } from '../status/run-status.js';

/** A run's wait for a person, as a waiting client looks at it when a default limit is up. */
export interface PersonWait {
  readonly waiting: boolean;
  /** When the last answer to the run's questions was given, or the last of its blockers lifted (epoch ms); null for none. */
  readonly lastAnswerAt: number | null;
}

/** A run that waits for a person: since when, until when, and what it asks. */
export interface RunWait {
  readonly asked_at: string;
  readonly until: string;
  readonly questions: RunQuestion[];
}

/** The questions a run waits on now, with the answers given so far; null when it waits on none. Never throws on what it reads. */
export async function readRunWait(redis: RedisClient, prefix: string, rootId: string, signing: SigningConfig | null): Promise<RunWait | null> {
  const keys = controlKeys(prefix);
  const [view, answers] = await Promise.all([redis.get(keys.questions(rootId)), redis.hgetall(keys.answers(rootId)).catch(() => ({}))]);
  const run = readWaitingRun(view);
  if (!run) return null;
  const given = readAnswers(answers, signing, run.asked_at).answers;
  return {
    asked_at: new Date(run.asked_at).toISOString(),
    until: new Date(run.until).toISOString(),
    questions: run.questions.map(({ id, question, tier }) => ({ id, question, tier, answer: given.get(id) ?? null })),
  };
}

/**
 * Whether a run waits for a person now, and when its last answer was given: what a client's
 * wait with the default limit needs to know when that limit is up. Answers that do not hold
 * (unsigned where the deployment signs, unreadable) are left out.
 */
export async function readPersonWait(redis: RedisClient, prefix: string, rootId: string, signing: SigningConfig | null): Promise<PersonWait> {
  const keys = controlKeys(prefix);
  // A run blocked on work outside it waits on people too: for whoever lifts the blocker.
  const [waiting, hash, unblocks] = await Promise.all([redis.exists(keys.questions(rootId), keys.blocked(rootId)), redis.hgetall(keys.answers(rootId)), redis.hgetall(keys.unblocks(rootId))]);
  const answered = readAnswers(hash, signing, 0).lastAt;
  const lifted = readUnblocks(unblocks, signing, 0).lastAt;
  return { waiting: waiting > 0, lastAnswerAt: answered === null && lifted === null ? null : Math.max(answered ?? 0, lifted ?? 0) };
}

/**
 * The run's tree with its wait shown at the root: status `input_required`, the questions and
 * until when it waits. A root that has answered waits on nothing, whatever a stale view says. Pure.
 */
export function withWait(tree: RunNode, wait: RunWait | null): RunNode {
  if (!wait || tree.source === 'outcome') return tree;
  return { ...tree, status: runStatus({ queueState: tree.queue_state, outcome: null, waitsForPerson: true }), questions: wait.questions, waiting_until: wait.until };
}

/** The status of a run that waits for a person's answers. */
export const INPUT_REQUIRED = 'input_required' satisfies RunStatus;
