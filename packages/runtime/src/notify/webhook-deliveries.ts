import type { RedisClient } from '@tierflow/beads';
import { Queue, type Job } from 'bullmq';
import { z } from 'zod';
import { webhookEventTypeSchema } from './webhook-events.js';
import { attemptRecordSchema, deliveryJobSchema, NOTIFY_QUEUE } from './webhook-queue.js';

/** One delivery as `GET /api/webhooks/deliveries` shows it. */
export const webhookDeliverySchema = z.strictObject({
  event_id: z.string(),
  type: webhookEventTypeSchema,
  root_id: z.string(),
  url: z.string(),
  state: z.enum(['pending', 'retrying', 'delivered', 'failed']),
  attempts: z.int().nonnegative(),
  max_attempts: z.int().positive(),
  last_status: z.number().nullable(),
  last_error: z.string().nullable(),
  /** When the event was queued, and when its delivery ended (null while it goes on), ms since the epoch. */
  queued_at: z.number(),
  finished_at: z.number().nullable(),
});
export type WebhookDelivery = z.output<typeof webhookDeliverySchema>;

/** What a delivery job says of itself, as read back from BullMQ. */
export interface DeliveryJobView {
  readonly data: unknown;
  readonly progress: unknown;
  readonly state: string;
  readonly attemptsMade: number;
  readonly maxAttempts: number;
  readonly failedReason: string | undefined;
  readonly timestamp: number;
  readonly finishedOn: number | undefined;
}

/** A delivery job read back as the record shows it; null for one whose data is not a delivery. Pure, never throws. */
export function deliveryOf(job: DeliveryJobView): WebhookDelivery | null {
  const data = deliveryJobSchema.safeParse(job.data);
  if (!data.success) return null;
  const attempt = attemptRecordSchema.safeParse(job.progress);
  const state = job.state === 'completed' ? 'delivered' : job.state === 'failed' ? 'failed' : job.attemptsMade > 0 ? 'retrying' : 'pending';
  return {
    event_id: data.data.event.id,
    type: data.data.event.type,
    root_id: data.data.event.root_id,
    url: data.data.url,
    state,
    attempts: job.attemptsMade,
    max_attempts: Math.max(1, job.maxAttempts),
    last_status: attempt.success ? attempt.data.last_status : null,
    last_error: attempt.success ? attempt.data.last_error : (job.failedReason ?? null),
    queued_at: job.timestamp,
    finished_at: job.finishedOn ?? null,
  };
}

const STATES = ['active', 'waiting', 'delayed', 'prioritized', 'completed', 'failed'] as const;

/**
 * The latest deliveries of every cell (their prefixes), newest first, at most `limit`. Jobs
 * unreadable or of another shape are left out.
 */
export async function readWebhookDeliveries(redis: RedisClient, prefixes: readonly string[], limit: number): Promise<WebhookDelivery[]> {
  const perCell = await Promise.all(
    prefixes.map(async (prefix) => {
      const queue = new Queue(NOTIFY_QUEUE, { connection: redis, prefix });
      try {
        const views = await Promise.all(STATES.map(async (state) => (await queue.getJobs([state], 0, limit - 1, false)).map((job: Job) => viewOf(job, state))));
        return views.flat();
      } finally {
        await queue.close();
      }
    }),
  );
  return perCell
    .flat()
    .flatMap((view) => deliveryOf(view) ?? [])
    .sort((a, b) => b.queued_at - a.queued_at)
    .slice(0, limit);
}

function viewOf(job: Job, state: string): DeliveryJobView {
  return {
    data: job.data,
    progress: job.progress,
    state,
    attemptsMade: job.attemptsMade,
    maxAttempts: job.opts.attempts ?? 1,
    failedReason: job.failedReason,
    timestamp: job.timestamp,
    finishedOn: job.finishedOn,
  };
}
