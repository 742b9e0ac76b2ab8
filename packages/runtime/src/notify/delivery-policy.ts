import { TierflowError } from '@tierflow/protocol';
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, webhookEventTypeSchema, type WebhookEventType } from './webhook-events.js';

/** Attempts a delivery gets when its subscription says nothing. */
export const DEFAULT_WEBHOOK_ATTEMPTS = 8;
/** The first retry's delay before jitter; each retry doubles it. */
export const DEFAULT_WEBHOOK_BASE_DELAY_MS = 1_000;
/** No retry waits longer than this, Retry-After included. */
export const DEFAULT_WEBHOOK_MAX_DELAY_MS = 10 * 60_000;
/** How long one attempt waits for the receiver's answer. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** One subscription, as the runtime takes it: the secret itself, read from its variable by whoever loaded the project file. */
export const webhookSubscriptionSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  /** The events it wants; every type when left out. */
  events: z.array(webhookEventTypeSchema).min(1).optional(),
  secret: z.string().min(1),
  maxAttempts: z.int().min(1).max(100).optional(),
  timeoutMs: z.int().min(100).max(120_000).optional(),
});
export type WebhookSubscriptionInput = z.input<typeof webhookSubscriptionSchema>;

export const notifyOptionsSchema = z.strictObject({
  subscriptions: z.array(webhookSubscriptionSchema),
  baseDelayMs: z.int().min(1).max(3_600_000).optional(),
  maxDelayMs: z.int().min(1).max(86_400_000).optional(),
});
export type NotifyOptionsInput = z.input<typeof notifyOptionsSchema>;

export interface WebhookSubscription {
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  readonly secret: string;
  readonly maxAttempts: number;
  readonly timeoutMs: number;
}

export interface NotifyOptions {
  readonly subscriptions: readonly WebhookSubscription[];
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * Fills the defaults of the webhook options and checks them. Pure.
 *
 * @throws TierflowError (permanent, code `invalid_config`) naming every problem.
 */
export function resolveNotifyOptions(input: NotifyOptionsInput): NotifyOptions {
  const parsed = notifyOptionsSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'notify'}: ${issue.message}`);
    throw TierflowError.permanent(`invalid notify options: ${problems.join('; ')}`, { code: 'invalid_config' });
  }
  const { subscriptions, baseDelayMs, maxDelayMs } = parsed.data;
  return {
    subscriptions: subscriptions.map((entry) => ({
      url: entry.url,
      events: entry.events ? [...new Set(entry.events)] : [...WEBHOOK_EVENT_TYPES],
      secret: entry.secret,
      maxAttempts: entry.maxAttempts ?? DEFAULT_WEBHOOK_ATTEMPTS,
      timeoutMs: entry.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
    })),
    baseDelayMs: baseDelayMs ?? DEFAULT_WEBHOOK_BASE_DELAY_MS,
    maxDelayMs: Math.max(maxDelayMs ?? DEFAULT_WEBHOOK_MAX_DELAY_MS, baseDelayMs ?? 0),
  };
}

/** What an attempt's answer means: delivered, worth another attempt, or never to be tried again. Pure. */
export function responseVerdict(status: number): 'delivered' | 'retry' | 'give_up' {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 408 || status === 429 || status >= 500) return 'retry';
  return 'give_up';
}

/**
 * A Retry-After header as ms from `nowMs`: delay-seconds or an HTTP date; null when absent or
 * unreadable. Pure.
 */
export function parseRetryAfter(header: string | null | undefined, nowMs: number): number | null {
  if (header === null || header === undefined) return null;
  const text = header.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month: a bare number that is not delay-seconds is no date.
  const date = /^[A-Za-z]{3},/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

/**
 * The wait before attempt `attemptsMade + 1`: exponential from `baseDelayMs`, capped at
 * `maxDelayMs`, with "equal jitter" (between half and all of it, so processes retrying one
 * receiver spread out); a receiver's Retry-After takes its place, capped alike. Pure: chance
 * comes in as `random`.
 */
export function retryDelayMs(attemptsMade: number, options: Pick<NotifyOptions, 'baseDelayMs' | 'maxDelayMs'>, random: () => number, retryAfterMs: number | null = null): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, options.maxDelayMs);
  const exponent = Math.min(Math.max(attemptsMade - 1, 0), 30);
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
