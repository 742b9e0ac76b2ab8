import { aggregationStrategySchema, delegationPayloadSchema, isJsonObject, jsonObjectSchema } from '@tierflow/protocol';
import type { Redis } from 'ioredis';
import type { RedisWrites } from './fenced-batch.js';
import { z } from 'zod';
import type { TierSlug } from '@tierflow/beads';
import { controlKeys, type ControlKeys } from './control-keys.js';
import { preview } from './control-notice.js';
import type { RecordRead } from './control-records.js';

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
  private readonly keys: ControlKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    /** The tier whose jobs these are: its records are its own. */
    private readonly tier: TierSlug,
    private readonly ttlMs: number,
  ) {
    this.keys = controlKeys(prefix);
  }

  key(jobId: string): string {
    return this.keys.step(this.tier, jobId);
  }

  /** The job's state, null when it has none, or why the stored one cannot be used. */
  async load(jobId: string): Promise<RecordRead<StepState> | null> {
    const text = await this.redis.get(this.key(jobId));
    return text === null ? null : this.read(text);
  }

  /**
   * The state as this runtime wrote it, or why it is not. Only its outline is checked: every
   * part of it was valid when written (the children's requests are the delegations sent), and a
   * full parse on every resume was a hot-path cost. Anything that does not look like a step
   * state gets the full parse, whose first error is the reason. Never throws.
   */
  read(text: string): RecordRead<StepState> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, reason: `not JSON: ${preview(text)}` };
    }
    if (hasStepStateOutline(value)) return { ok: true, value };
    const parsed = stepStateSchema.safeParse(value);
    if (parsed.success) return { ok: true, value: parsed.data };
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `not a step state: ${issue ? `${issue.path.join('.') || '(the record)'}: ${issue.message}` : 'invalid'}` };
  }

  /** Queues the write of a job's state on a pipeline. */
  write(pipeline: RedisWrites, jobId: string, state: StepState): void {
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
