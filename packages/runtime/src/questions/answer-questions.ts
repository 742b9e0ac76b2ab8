import { MAX_CLARIFICATION_CHARS, TierflowError, type Question } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { appendAuditNow, AUDIT_CLIENT, type AuditEntry } from '../audit/audit-entry.js';
import { auditKey } from '../redis/keys.js';
import { controlKeys } from '../redis/keys.js';
import type { Signer, SigningConfig } from '../security/signing-keys.js';
import { answerRecord, readAnswers, readWaitingRun } from './question-records.js';
import { runScript, type RedisScript } from '../redis/scripts.js';

/**
 * Records answers to a waiting run's questions, all or none. The client checked them against the
 * run's questions view (the root's record, which a client may read and not write, so it is not
 * a key of this script). Each answer is set only if the field still holds what the client read
 * there: nothing, or a record the root would ignore (unsigned, stale, not an answer); an answer
 * given meanwhile wins.
 *   KEYS[1]  the run's answers hash (written by clients): question id → answer record
 *   ARGV[1]  the hash's TTL in ms
 *   ARGV[2…] question id, answer record, what the client read in its field ('' for nothing), …
 * Returns { 'already_answered', id } | { 'ok' }.
 */
const ANSWER_QUESTIONS: RedisScript = {
  lua: `
-- Every answer is checked before any is written.
for i = 2, #ARGV, 3 do
  local current = redis.call('HGET', KEYS[1], ARGV[i])
  if (current or '') ~= ARGV[i + 2] then return { 'already_answered', ARGV[i] } end
end
for i = 2, #ARGV, 3 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return { 'ok' }`,
};

export interface AnswerOptions {
  /** The question to answer (its id); every open one when left out. */
  readonly to?: string;
  /** Now, on the deployment's clock. */
  readonly now: number;
  /** The client's signer, when the deployment signs. */
  readonly signer: Signer | null;
  /** The deployment's keys, when it signs: answers on record are read as the root reads them. */
  readonly signing: SigningConfig | null;
  /** How long answers are kept: they must outlive the wait. */
  readonly ttlMs: number;
}

export interface AnswerReport {
  /** The ids of the questions this answered. */
  readonly answered: readonly string[];
  /** Questions of the run's wait still without an answer: the run resumes once none are. */
  readonly open: number;
}

/**
 * Answers a waiting run's questions: one (`to`) or every one still open, with the same text.
 * The answers and their audit entries are written; the caller wakes the run once none is open.
 *
 * @throws TierflowError with code `invalid_answer` (blank, or over 4,000 characters),
 *   `not_waiting` (the run asks nothing now), `unknown_question` (`to` is not one of its open
 *   questions) or `already_answered`.
 */
export async function answerQuestions(redis: RedisClient, prefix: string, rootId: string, text: string, options: AnswerOptions): Promise<AnswerReport> {
  const answer = text.trim();
  if (answer.length === 0 || answer.length > MAX_CLARIFICATION_CHARS) {
    throw TierflowError.permanent(`an answer must be 1 to ${MAX_CLARIFICATION_CHARS} characters, not blank`, { code: 'invalid_answer' });
  }
  const keys = controlKeys(prefix);
  const [view, stored] = await Promise.all([redis.get(keys.questions(rootId)), redis.hgetall(keys.answers(rootId))]);
  const run = readWaitingRun(view);
  if (!run) throw notWaiting(rootId);
  // Answers as the root will read them: a record it would ignore does not answer anything.
  const given = readAnswers(stored, options.signing, run.asked_at).answers;
  const open = run.questions.filter((question) => !given.has(question.id));
  const targets = options.to === undefined ? open : run.questions.filter((question) => question.id === options.to);
  if (options.to !== undefined && targets.length === 0) throw unknownQuestion(rootId, options.to, open);
  const taken = targets.find((question) => given.has(question.id));
  if (taken) throw alreadyAnswered(rootId, taken.id);
  if (targets.length === 0) throw alreadyAnswered(rootId);
  const args = targets.flatMap((question) => [question.id, answerRecord(question.id, answer, options.now, options.signer), stored[question.id] ?? '']);
  const reply = await runScript(redis, ANSWER_QUESTIONS, [keys.answers(rootId)], [String(options.ttlMs), ...args]);
  if (Array.isArray(reply) && reply[0] === 'already_answered') throw alreadyAnswered(rootId, String(reply[1]));
  // Read again: answers given at the same time by others count, so one of us sees none left open.
  const after = readAnswers(await redis.hgetall(keys.answers(rootId)), options.signing, run.asked_at).answers;
  await appendAuditNow(
    redis,
    auditKey(prefix, rootId),
    targets.map((question) => answerEntry(question, answer, options.now)),
    null,
  );
  return { answered: targets.map((question) => question.id), open: run.questions.filter((question) => !after.has(question.id)).length };
}

function answerEntry(question: Question, answer: string, now: number): AuditEntry {
  const time = new Date(now).toISOString();
  return {
    time,
    from: AUDIT_CLIENT,
    to: 'PROGRESS_MONITOR',
    kind: 'answer',
    direction: 'sent',
    id: question.id,
    correlation_id: '',
    status: '',
    confidence: null,
    by: AUDIT_CLIENT,
    attempt: null,
    detail: answer,
  };
}

function notWaiting(rootId: string): TierflowError {
  return TierflowError.permanent(`run ${rootId} is not waiting for an answer (unknown, finished, or already answered)`, { code: 'not_waiting' });
}

function unknownQuestion(rootId: string, id: string, open: readonly Question[]): TierflowError {
  const ids = open.map((question) => question.id).join(', ') || 'none';
  return TierflowError.permanent(`run ${rootId} asks no open question ${id}; its open questions: ${ids}`, { code: 'unknown_question' });
}

function alreadyAnswered(rootId: string, id?: string): TierflowError {
  return TierflowError.permanent(id ? `question ${id} of run ${rootId} is already answered` : `every question of run ${rootId} is already answered`, { code: 'already_answered' });
}
