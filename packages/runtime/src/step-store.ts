import { aggregationStrategySchema, delegationPayloadSchema, isJsonObject, jsonObjectSchema } from '@tierflow/protocol';
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

  /**
   * The state as this runtime wrote it. Only its outline is checked: every part of it was valid
   * when written (the children's requests are the delegations sent), and a full parse on every
   * resume was a hot-path cost. Anything that does not look like a step state gets the full
   * parse, and its errors.
   */
  parse(text: string): StepState {
    const value: unknown = JSON.parse(text);
    return hasStepStateOutline(value) ? value : stepStateSchema.parse(value);
  }

  /** Queues the write of a job's state on a pipeline. */
  write(pipeline: ChainableCommander, jobId: string, state: StepState): void {
    pipeline.set(this.key(jobId), JSON.stringify(state), 'PX', this.ttlMs);
  }
}

const STRATEGIES: ReadonlySet<unknown> = new Set(aggregationStrategySchema.options);

/** The fields a resuming parent reads, with their types; defaults already written out. */
function hasStepStateOutline(state: unknown): state is StepState {
  return (
    isJsonObject(state) &&
    Number.isSafeInteger(state.round) &&
    STRATEGIES.has(state.strategy) &&
    isJsonObject(state.memo) &&
    (state.answer_by === null || typeof state.answer_by === 'number') &&
    Array.isArray(state.children) &&
    state.children.every(isChildOutline)
  );
}

function isChildOutline(child: unknown): boolean {
  if (!isJsonObject(child)) return false;
  const request = child.request;
  return (
    typeof child.id === 'string' &&
    Number.isSafeInteger(child.index) &&
    (child.deadline === null || typeof child.deadline === 'number') &&
    isJsonObject(request) &&
    typeof request.task_type === 'string' &&
    typeof request.objective === 'string'
  );
}
