import { aggregationStrategySchema, delegationPayloadSchema, jsonObjectSchema } from '@tierflow/protocol';
import type { ChainableCommander, Redis } from 'ioredis';
import { z } from 'zod';

/** What a parent remembers between delegating and resuming: the round, its children, the policy's memo. */
export const stepStateSchema = z.object({
  round: z.int().nonnegative(),
  strategy: aggregationStrategySchema,
  children: z.array(
    z.object({
      id: z.string(),
      index: z.int().nonnegative(),
      request: delegationPayloadSchema,
      /** When the child must have answered (ms since the epoch), from its timeout_ms; null without one. */
      deadline: z.number().nullable().default(null),
      /** The W3C context of the child's delegation span, for the aggregate step's links. */
      trace: z.string().optional(),
    }),
  ),
  memo: jsonObjectSchema,
  /** The round's pending watchdog job, removed once the round has settled normally. */
  watchdog: z.string().optional(),
  /** Trace context for later passes when the job carries none (a root enqueued without an SDK). */
  trace: z.string().optional(),
  /** When this job itself must answer (its deadline less the receiver's margin); null without a timeout. */
  answer_by: z.number().nullable().default(null),
});
export type StepState = z.output<typeof stepStateSchema>;

/**
 * Step state lives beside the job, not in its data: the job's data stays the envelope it was
 * given. Kept until the job finishes, with a TTL as a backstop.
 */
export class StepStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {}

  key(jobId: string): string {
    return `${this.prefix}:step:${jobId}`;
  }

  async load(jobId: string): Promise<StepState | null> {
    const text = await this.redis.get(this.key(jobId));
    return text === null ? null : this.parse(text);
  }

  parse(text: string): StepState {
    return stepStateSchema.parse(JSON.parse(text));
  }

  /** Queues the write of a job's state on a pipeline. */
  write(pipeline: ChainableCommander, jobId: string, state: StepState): void {
    pipeline.set(this.key(jobId), JSON.stringify(state), 'PX', this.ttlMs);
  }
}
