import { clarificationSchema, messageSignatureSchema, questionSchema } from '@tierflow/protocol';
import { z } from 'zod';
import { readStoredRecord } from '../redis/stored-record.js';
import { signRecord } from '../security/signing.js';
import { CLIENT } from '../security/party.js';
import type { Signer, SigningConfig } from '../security/signing-keys.js';

/**
 * A run waiting for a person, as the root publishes it at `<prefix>:questions:<root id>` for
 * clients to read and answer: what was asked, when, and until when the run waits. The root's
 * own copy, which it acts on, is in its step state; this one is a view, and the answer script's
 * check that a question is open.
 */
export const waitingRunSchema = z.looseObject({
  root_id: z.string(),
  asked_at: z.number(),
  until: z.number(),
  questions: z.array(questionSchema).min(1),
});
export type WaitingRun = z.output<typeof waitingRunSchema>;

/** A person's answer to one question, kept by the client at `<prefix>:answers:<root id>`, a hash by question id. */
export const answerRecordSchema = z.looseObject({
  question_id: clarificationSchema.shape.question_id,
  answer: clarificationSchema.shape.answer,
  /** When it was given, on the deployment's clock. */
  answered_at: z.number(),
  signature: messageSignatureSchema.optional(),
});
export type AnswerRecord = z.output<typeof answerRecordSchema>;

/** An answer as stored: JSON, signed by the client when the deployment signs. */
export function answerRecord(questionId: string, answer: string, answeredAt: number, signer: Signer | null): string {
  return JSON.stringify(signRecord({ question_id: questionId, answer, answered_at: answeredAt }, signer));
}

/** The waiting run in a stored view, or null for none, or one that does not parse. Never throws. */
export function readWaitingRun(text: string | null): WaitingRun | null {
  if (text === null) return null;
  const read = readStoredRecord(text, waitingRunSchema, { what: 'a waiting run' });
  return read.ok ? read.value : null;
}

export interface AnswersRead {
  /** Question id → answer, of the records that hold. */
  readonly answers: Map<string, string>;
  /** When the last of them was given; null for none. */
  readonly lastAt: number | null;
  /** Why each record that does not hold was ignored, by field. */
  readonly ignored: { readonly field: string; readonly reason: string }[];
}

/**
 * The answers in a run's answers hash. A record that is not JSON, not an answer, filed under
 * another question, given before `since` (an earlier wait's) or, when the deployment signs, not
 * signed by the client is ignored, with the reason. Never throws.
 */
export function readAnswers(hash: Record<string, string>, signing: SigningConfig | null, since: number): AnswersRead {
  const answers = new Map<string, string>();
  const ignored: { field: string; reason: string }[] = [];
  let lastAt: number | null = null;
  for (const [field, text] of Object.entries(hash)) {
    const reason = answerProblem(field, text, signing, since);
    if (typeof reason === 'string') {
      ignored.push({ field, reason });
    } else {
      answers.set(field, reason.answer);
      lastAt = Math.max(lastAt ?? 0, reason.answered_at);
    }
  }
  return { answers, ignored, lastAt };
}

function answerProblem(field: string, text: string, signing: SigningConfig | null, since: number): string | AnswerRecord {
  const read = readStoredRecord(text, answerRecordSchema, {
    what: 'an answer',
    check: (record) => {
      if (record.question_id !== field) return `filed under ${field}, it answers ${record.question_id}`;
      return record.answered_at < since ? 'given before the question was asked' : null;
    },
    signedBy: { signing, writer: CLIENT },
  });
  return read.ok ? read.value : read.reason;
}
