import { createHash } from 'node:crypto';
import { outcomeStatusSchema, questionSchema, type OutcomeMessage, type OutcomePayload, type Question } from '@tierflow/protocol';
import { z } from 'zod';

/** What a webhook may be told of (docs/operations.md#webhooks). */
export const WEBHOOK_EVENT_TYPES = ['review', 'question', 'blocked', 'done', 'security'] as const;
export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof webhookEventTypeSchema>;

/** A run's root answered: its status, with how sure it was. */
const doneDetail = z.looseObject({
  confidence: z.number(),
  error_type: z.string().nullable(),
  /** The root's outcome message id. */
  outcome_id: z.string(),
});

/** A node's work held for a person's review by the confidence cascade check (docs/protocol.md#confidence-cascade). */
const reviewDetail = z.looseObject({
  /** The outcome held for review. */
  upstream_id: z.string(),
  confidence: z.number(),
  threshold: z.number(),
  checked_by: z.string(),
});

/** A run waiting for a person's answers (docs/protocol.md#questions). */
const questionDetail = z.looseObject({
  questions: z.array(questionSchema).min(1),
  asked_at: z.number(),
  /** Until when the run waits, ms since the epoch. */
  until: z.number(),
});

/** Work that cannot go on until something outside the run changes. */
const blockedDetail = z.looseObject({
  reason: z.string().min(1),
  /** What it waits for, when known: a resource, a party, an approval. */
  blocked_on: z.string().optional(),
});

/** Something a security check refused or found. */
const securityDetail = z.looseObject({
  kind: z.string().min(1),
  severity: z.enum(['low', 'medium', 'high', 'critical']),
  message: z.string().min(1),
});

const common = {
  /** Unique per event, the same for every process that sees it: what a receiver de-duplicates on. */
  id: z.string().regex(/^evt_[0-9a-f]{32}$/),
  /** When it happened, ISO 8601. */
  time: z.iso.datetime(),
  /** The deployment's key prefix: which Tierflow sent it. */
  deployment: z.string().min(1),
  root_id: z.string().min(1),
  node_id: z.string().min(1).optional(),
  status: outcomeStatusSchema.optional(),
  summary: z.string().optional(),
};

/** The JSON body Tierflow POSTs to a subscribed URL: one schema per event type, told apart by `type`. */
export const webhookEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ ...common, type: z.literal('done'), status: outcomeStatusSchema, detail: doneDetail }),
  z.strictObject({ ...common, type: z.literal('review'), node_id: z.string().min(1), detail: reviewDetail }),
  z.strictObject({ ...common, type: z.literal('question'), detail: questionDetail }),
  z.strictObject({ ...common, type: z.literal('blocked'), detail: blockedDetail }),
  z.strictObject({ ...common, type: z.literal('security'), detail: securityDetail }),
]);
export type WebhookEvent = z.output<typeof webhookEventSchema>;
export type BlockedDetail = z.output<typeof blockedDetail>;
export type SecurityDetail = z.output<typeof securityDetail>;

/** Where an event happened and when: what every event carries besides its own. */
export interface EventSource {
  readonly deployment: string;
  readonly rootId: string;
  /** ms since the epoch. */
  readonly now: number;
}

/**
 * The id of an event: a digest of what makes it the event it is, so every process that sees it
 * names it alike (and a delivery is claimed once per subscription). `key` tells apart events of
 * one type at one node (a second wait for answers, say). Pure.
 */
export function webhookEventId(deployment: string, type: WebhookEventType, rootId: string, nodeId: string | undefined, key = ''): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([deployment, type, rootId, nodeId ?? null, key]))
    .digest('hex');
  return `evt_${digest.slice(0, 32)}`;
}

function base(source: EventSource, type: WebhookEventType, nodeId: string | undefined, key?: string) {
  return {
    id: webhookEventId(source.deployment, type, source.rootId, nodeId, key),
    time: new Date(source.now).toISOString(),
    deployment: source.deployment,
    root_id: source.rootId,
    ...(nodeId === undefined ? {} : { node_id: nodeId }),
  };
}

/** `review` when the gravest check behind an answer held a node's work for review; null otherwise. Pure. */
export function reviewEvent(source: EventSource, answer: Pick<OutcomePayload, 'status' | 'summary' | 'cascade_check'>): WebhookEvent | null {
  const check = answer.cascade_check;
  if (!check || check.action !== 'needs_review') return null;
  return {
    ...base(source, 'review', check.upstream_id),
    type: 'review',
    node_id: check.upstream_id,
    status: answer.status,
    summary: answer.summary,
    detail: { upstream_id: check.upstream_id, confidence: check.confidence, threshold: check.threshold, checked_by: check.checked_by },
  };
}

/**
 * The events a root's outcome gives: `done`, and `review` first when the gravest check behind it
 * held a node's work for review. Pure.
 */
export function rootOutcomeEvents(source: EventSource, outcome: OutcomeMessage): WebhookEvent[] {
  const { payload } = outcome;
  const done: WebhookEvent = {
    ...base(source, 'done', undefined),
    type: 'done',
    status: payload.status,
    summary: payload.summary,
    detail: { confidence: payload.confidence, error_type: payload.error_type ?? null, outcome_id: outcome.id },
  };
  const review = reviewEvent(source, payload);
  return review ? [review, done] : [done];
}

/** A run asks a person: its questions, and until when it waits. Pure. */
export function questionEvent(source: EventSource, wait: { readonly askedAt: number; readonly until: number; readonly questions: readonly Question[] }): WebhookEvent {
  return {
    ...base(source, 'question', undefined, String(wait.askedAt)),
    type: 'question',
    status: 'needs_clarification',
    summary: wait.questions.map((question) => question.question).join(' / '),
    detail: { questions: [...wait.questions], asked_at: wait.askedAt, until: wait.until },
  };
}

/** Work blocked at `nodeId` (the root when left out); `key` tells apart two blocks of one node. Pure. */
export function blockedEvent(source: EventSource, input: { readonly nodeId?: string; readonly key?: string; readonly summary?: string; readonly detail: BlockedDetail }): WebhookEvent {
  return {
    ...base(source, 'blocked', input.nodeId, input.key),
    type: 'blocked',
    status: 'blocked',
    ...(input.summary === undefined ? {} : { summary: input.summary }),
    detail: input.detail,
  };
}

/** A security finding of a run (at `nodeId` when given); `key` tells apart two findings of one node. Pure. */
export function securityEvent(source: EventSource, input: { readonly nodeId?: string; readonly key?: string; readonly summary?: string; readonly detail: SecurityDetail }): WebhookEvent {
  return {
    ...base(source, 'security', input.nodeId, input.key ?? input.detail.kind),
    type: 'security',
    ...(input.summary === undefined ? {} : { summary: input.summary }),
    detail: input.detail,
  };
}
