import { aggregationStrategySchema, delegationPayloadSchema, isJsonObject, jsonObjectSchema, messageSignatureSchema, usageSchema, type TierSlug } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import type { RedisWrites } from '../redis/fenced-batch.js';
import { z } from 'zod';
import { controlKeys, type ControlKeys } from '../redis/keys.js';
import { readStoredRecord, type RecordRead } from '../redis/stored-record.js';
import { signRecord } from '../security/signing.js';
import { signerOf, type Signer, type SigningConfig } from '../security/signing-keys.js';
import { awaitingSchema } from '../questions/awaiting.js';

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
  /**
   * What the children of the rounds before this one used (tokens, cost, model calls), summed as
   * each round settled: kept here so a parent resumed in another process, after a crash, still
   * counts them. Read leniently (usageOf), since the outline check does not look at it.
   */
  usage: usageSchema.optional(),
  /**
   * The subtasks below the rounds before this one, as the run's tree shows them (core's
   * SubtaskTally: leaves delegated and succeeded), for a stopped parent's summary. Read leniently
   * (readTally): a tally that makes no sense counts as none, and never makes the state corrupt.
   */
  subtasks: z.unknown().optional(),
  /** The round's pending watchdog job, removed once the round has settled normally. */
  watchdog: z.string().optional(),
  /** Trace context for later passes when the job carries none (a root enqueued without an SDK). */
  trace: z.string().optional(),
  /** When this job itself must answer (its deadline less the receiver's margin); null without a timeout. */
  answer_by: z.number().nullable().default(null),
  /** While the job waits for a person to answer its questions (the root only): what it asked, until when. */
  awaiting: awaitingSchema.optional(),
  /** How long the job waited for answers before this round, all waits together: its deadline does not count that time. */
  paused_ms: z.number().nonnegative().optional(),
  /**
   * The delegation as the deployment's receive interceptors left it, kept when they changed it:
   * the job's later passes read what its first one did (docs/protocol.md#handoff-interceptors).
   */
  received: delegationPayloadSchema.optional(),
  /** The job this is the state of: signed with the state, so a record copied to another job's key is refused. */
  job_id: z.string().optional(),
  /** The owning tier's signature, when the deployment signs. */
  signature: messageSignatureSchema.optional(),
});
export type StepState = z.output<typeof stepStateSchema>;

/**
 * Step state lives beside the job, not in its data: the job's data stays the envelope it was
 * given. Kept until the job finishes, with a TTL as a backstop.
 */
export class StepStore {
  private readonly keys: ControlKeys;
  private readonly signer: Signer | null;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    /** The tier whose jobs these are: its records are its own, and signed by it when the deployment signs. */
    private readonly tier: TierSlug,
    private readonly ttlMs: number,
    private readonly signing: SigningConfig | null = null,
  ) {
    this.keys = controlKeys(prefix);
    this.signer = signerOf(signing, tier);
  }

  key(jobId: string): string {
    return this.keys.step(this.tier, jobId);
  }

  /** The job's state, null when it has none, or why the stored one cannot be used. */
  async load(jobId: string): Promise<RecordRead<StepState> | null> {
    const text = await this.redis.get(this.key(jobId));
    return text === null ? null : this.read(text, jobId);
  }

  /**
   * The state as this runtime wrote it, or why it is not. Only its outline is checked: every
   * part of it was valid when written (the children's requests are the delegations sent), and a
   * full parse on every resume was a hot-path cost. Anything that does not look like a step
   * state gets the full parse, whose first error is the reason. In a deployment that signs, a
   * state this tier did not sign for this job is refused. Never throws.
   */
  read(text: string, jobId: string): RecordRead<StepState> {
    return readStoredRecord(text, stepStateSchema, {
      what: 'a step state',
      accept: hasStepStateOutline,
      // Only a signed state carries its job's id: the signature is what makes the id worth checking.
      check: (state) => (this.signing && state.job_id !== jobId ? `it is the state of ${String(state.job_id).slice(0, 80)}, not ${jobId}` : null),
      signedBy: { signing: this.signing, writer: this.tier },
    });
  }

  /** Queues the write of a job's state on a pipeline. */
  write(pipeline: RedisWrites, jobId: string, state: StepState): void {
    const record = this.signer ? signRecord({ ...state, job_id: jobId }, this.signer) : state;
    pipeline.set(this.key(jobId), JSON.stringify(record), 'PX', this.ttlMs);
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
    // Rare (a root waiting for answers), so checked whole.
    (state.awaiting === undefined || awaitingSchema.safeParse(state.awaiting).success) &&
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
