import { ERROR_TYPES, type TierName } from '@tierflow/protocol';
import type { Job } from 'bullmq';
import type { RedisClient } from '@tierflow/beads';
import { InvalidJobError } from '../messages/assignment.js';
import type { Assignment } from '../policy/handler.js';
import { checkMessageTime } from './message-window.js';
import { ReplayGuard } from './replay-guard.js';
import { CLIENT, partyOf, type Party } from './party.js';
import { checkSignature } from './signing.js';
import type { SigningConfig } from './signing-keys.js';

/**
 * The checks a tier makes of each job in a deployment that signs, after the job has been read as
 * a valid assignment and before anything runs. Each refusal throws {@link InvalidJobError}, so the
 * job goes to the dead-letter queue with its reason and is never retried:
 * - `signature_invalid`: unsigned, signed with a key not accepted here or by a party other than
 *   its sender (the client for a root, the tier above for a delegation), forged, or altered;
 * - `job_id_mismatch`: the job's id is not the message's id (ids are what de-duplication and the
 *   replay records go by);
 * - `message_stale` / `message_from_future`: see {@link checkMessageTime};
 * - `message_replayed`: another job already holds this message id (see {@link ReplayGuard}).
 */
export class MessageGate {
  private readonly guard: ReplayGuard;

  constructor(
    redis: RedisClient,
    prefix: string,
    tier: TierName,
    private readonly signing: SigningConfig,
    /** Replay records live at least this long past the message's deadline (the de-duplication TTL). */
    private readonly recordFloorMs: number,
  ) {
    this.guard = new ReplayGuard(redis, prefix, tier);
  }

  /** `now` is on the deployment's clock (Redis's), as are the message's time and its job's enqueue time. */
  async admit(job: Job, assignment: Assignment, now: number): Promise<void> {
    // A root comes from the client; a delegation from the tier it names as its source, which the
    // assignment has already checked is the tier above this one.
    const signer: Party = assignment.message ? partyOf(assignment.message.source_tier) : CLIENT;
    const signature = checkSignature(job.data, this.signing, signer);
    if (!signature.ok) throw new InvalidJobError(`${ERROR_TYPES.signatureInvalid}: ${signature.reason}`);
    if (job.id !== assignment.id) {
      throw new InvalidJobError(`job_id_mismatch: job ${job.id} carries message ${assignment.id}; a signed message runs only as the job of its own id`);
    }
    const signedAt = signedAtOf(assignment, job.data);
    const window = checkMessageTime(signedAt, job.timestamp, now, this.signing.maxClockSkewMs);
    if (window) throw new InvalidJobError(window.reason);
    // Kept while the message could still run (past its deadline it is answered `timeout` without
    // running), and at least as long as de-duplication remembers it and twice the clock window.
    const timeout = assignment.payload.timeout_ms;
    const untilDeadline = timeout === null ? 0 : Math.max(0, signedAt + timeout - now);
    const ttlMs = untilDeadline + Math.max(this.recordFloorMs, 2 * this.signing.maxClockSkewMs);
    const holder = await this.guard.admit(assignment.id, job.timestamp, ttlMs);
    if (holder !== null) {
      throw new InvalidJobError(
        `message_replayed: message ${assignment.id} was already accepted as a job enqueued at ${new Date(holder).toISOString()}; this copy, enqueued at ${new Date(job.timestamp).toISOString()}, is refused`,
      );
    }
  }
}

/** When the message was signed: a delegation's timestamp, or a root objective's `submitted_at`. */
function signedAtOf(assignment: Assignment, data: unknown): number {
  if (assignment.message) return Date.parse(assignment.message.timestamp);
  const submitted = (data as { submitted_at?: unknown }).submitted_at;
  return typeof submitted === 'string' ? Date.parse(submitted) : Number.NaN;
}
