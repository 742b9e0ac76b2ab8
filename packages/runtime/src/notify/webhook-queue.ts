import { createHash } from 'node:crypto';
import type { RedisClient } from '@tierflow/beads';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { z } from 'zod';
import type { TierLogger } from '../policy/handler.js';
import { parseRetryAfter, responseVerdict, retryDelayMs, type NotifyOptions, type WebhookSubscription } from './delivery-policy.js';
import { webhookEventSchema, type WebhookEvent } from './webhook-events.js';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, webhookSignatureHeader } from './webhook-signature.js';

/** The queue of deliveries, one per cell beside the tiers' queues. */
export const NOTIFY_QUEUE = 'notify';

/** Delivered ones are kept a day (the de-duplication window of an event), given-up ones a week, and no more than this many of each. */
const KEEP_DELIVERED = { age: 24 * 3600, count: 1000 };
const KEEP_FAILED = { age: 7 * 24 * 3600, count: 1000 };

/** A delivery job's data: the event and where it goes. The secret is not stored: the worker has it from its options. */
export const deliveryJobSchema = z.strictObject({ event: webhookEventSchema, url: z.string() });
export type DeliveryJob = z.output<typeof deliveryJobSchema>;

/** What each attempt leaves on its job (its progress), for the deliveries' record. */
export const attemptRecordSchema = z.looseObject({
  last_status: z.number().nullable(),
  last_error: z.string().nullable(),
  attempted_at: z.number(),
});
export type AttemptRecord = z.output<typeof attemptRecordSchema>;

/**
 * The job id of an event's delivery to one URL: the same in every process, so BullMQ adds it once
 * however many processes saw the event, and never again while the job is kept. Pure.
 */
export function deliveryJobId(eventId: string, url: string): string {
  return `${eventId}-${createHash('sha256').update(url).digest('hex').slice(0, 16)}`;
}

/** The subscriptions that want an event. Pure. */
export function subscribersOf(event: Pick<WebhookEvent, 'type'>, subscriptions: readonly WebhookSubscription[]): WebhookSubscription[] {
  return subscriptions.filter((subscription) => subscription.events.includes(event.type));
}

/** What code that observes an event calls: never throws, never waits for a receiver. */
export interface WebhookEmitter {
  emit(event: WebhookEvent): Promise<void>;
}

/**
 * Queues deliveries of events: one job per subscription that wants the event, with its attempts
 * and backoff; a job id made of the event id and the URL keeps it to one however many processes
 * see the same event.
 */
export class WebhookNotifier implements WebhookEmitter {
  private readonly queue: Queue;

  constructor(
    redis: RedisClient,
    prefix: string,
    private readonly options: NotifyOptions,
    private readonly log: TierLogger,
  ) {
    this.queue = new Queue(NOTIFY_QUEUE, { connection: redis, prefix });
  }

  async emit(event: WebhookEvent): Promise<void> {
    const parsed = webhookEventSchema.safeParse(event);
    if (!parsed.success) {
      this.log.warn('webhook event refused: not of its schema', { type: event.type, error: parsed.error.message });
      return;
    }
    await Promise.all(
      subscribersOf(event, this.options.subscriptions).map(async (subscription) => {
        try {
          await this.queue.add('deliver', { event: parsed.data, url: subscription.url } satisfies DeliveryJob, {
            jobId: deliveryJobId(event.id, subscription.url),
            attempts: subscription.maxAttempts,
            backoff: { type: 'webhook' },
            removeOnComplete: KEEP_DELIVERED,
            removeOnFail: KEEP_FAILED,
          });
        } catch (error) {
          this.log.warn('could not queue a webhook delivery', { event: event.id, url: subscription.url, error: String(error) });
        }
      }),
    );
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

/** An attempt worth another: the receiver's Retry-After, when it gave one. */
class RetryLater extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
  }
}

/**
 * Delivers queued events: POSTs each, signed, and retries on network errors, 5xx, 408 and 429
 * (after the receiver's Retry-After, else with exponential backoff and jitter) until the
 * subscription's attempts are spent; any other answer gives up at once. Needs a connection of its
 * own (BullMQ blocks on it).
 */
export class WebhookDeliveryWorker {
  private readonly worker: Worker;

  constructor(
    redis: RedisClient,
    prefix: string,
    private readonly options: NotifyOptions,
    private readonly log: TierLogger,
    private readonly send: typeof fetch = fetch,
  ) {
    this.worker = new Worker(NOTIFY_QUEUE, (job) => this.deliver(job), {
      connection: redis,
      prefix,
      concurrency: 8,
      autorun: false,
      settings: { backoffStrategy: (attemptsMade, _type, error) => retryDelayMs(attemptsMade, options, Math.random, error instanceof RetryLater ? error.retryAfterMs : null) },
    });
    this.worker.on('error', (error) => log.warn('webhook worker error', { error: error.message }));
    this.worker.on('failed', (job, error) => {
      const spent = job !== undefined && job.attemptsMade >= (job.opts.attempts ?? 1);
      if (spent || error instanceof UnrecoverableError || error.name === 'UnrecoverableError') log.warn('webhook delivery given up', { id: job?.id, error: error.message });
    });
  }

  async start(): Promise<void> {
    void this.worker.run().catch((error: unknown) => this.log.warn('webhook worker stopped', { error: String(error) }));
    await this.worker.waitUntilReady();
  }

  async close(): Promise<void> {
    await this.worker.close();
  }

  private async deliver(job: Job): Promise<{ status: number }> {
    const parsed = deliveryJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`not a delivery: ${parsed.error.message.slice(0, 200)}`);
    const { event, url } = parsed.data;
    const subscription = this.options.subscriptions.find((candidate) => candidate.url === url);
    if (!subscription) throw new UnrecoverableError('no subscription of this process has that URL');
    const body = JSON.stringify(event);
    const now = Date.now();
    let status: number | null = null;
    try {
      const response = await this.send(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Tierflow-Webhook/1',
          [SIGNATURE_HEADER]: webhookSignatureHeader(subscription.secret, Math.floor(now / 1000), body),
          [EVENT_ID_HEADER]: event.id,
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(subscription.timeoutMs),
      });
      status = response.status;
      // The body is not read, but released.
      await response.body?.cancel().catch(() => undefined);
      const verdict = responseVerdict(status);
      await this.record(job, { last_status: status, last_error: verdict === 'delivered' ? null : `HTTP ${status}`, attempted_at: now });
      if (verdict === 'delivered') return { status };
      if (verdict === 'give_up') throw new UnrecoverableError(`HTTP ${status}`);
      throw new RetryLater(`HTTP ${status}`, parseRetryAfter(response.headers.get('retry-after'), now));
    } catch (error) {
      if (error instanceof UnrecoverableError || error instanceof RetryLater) throw error;
      const message = error instanceof Error ? (error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message) : String(error);
      await this.record(job, { last_status: status, last_error: message, attempted_at: now });
      throw new RetryLater(message, null);
    }
  }

  private async record(job: Job, attempt: AttemptRecord): Promise<void> {
    await job.updateProgress(attempt).catch((error: unknown) => this.log.warn('could not record a webhook attempt', { id: job.id, error: String(error) }));
  }
}
