import { seenMessagesRedisPrefix } from '@tierflow/beads';
import type { TierName } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { runScript, type RedisScript } from '../redis/scripts.js';

/**
 * One step, so two copies racing cannot both be first: record the job that holds the id, or
 * compare with the job already recorded.
 *   KEYS[1]  the id's record
 *   ARGV[1]  the enqueue time of the job presenting the id, ARGV[2] the record's TTL in ms
 * Returns false when the record is new, else the enqueue time it holds.
 */
const ADMIT: RedisScript = {
  lua: `
local held = redis.call('GET', KEYS[1])
if not held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return false
end
return held`,
};

/**
 * Which job holds each signed message id a tier has accepted. BullMQ runs one job many times —
 * retries, a stalled job taken back, a parent resumed after its children — and all of those are
 * the same job, with the same enqueue time. A different job carrying an id already accepted is a
 * copy: someone added the message again, and it is refused. The records sit beside the tier's
 * de-duplication records, under `beads:system/seen-messages/<tier>/accepted/<id>`, which only
 * that tier may write.
 */
export class ReplayGuard {
  private readonly base: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    tier: TierName,
  ) {
    this.base = `${seenMessagesRedisPrefix(prefix, tier)}accepted/`;
  }

  key(messageId: string): string {
    return this.base + messageId;
  }

  /**
   * Accepts `messageId` for the job enqueued at `jobTimestamp`, keeping the record `ttlMs`.
   * Returns null when this job holds the id (first time, or again), else the enqueue time of the
   * job that does.
   */
  async admit(messageId: string, jobTimestamp: number, ttlMs: number): Promise<number | null> {
    const held = await runScript(this.redis, ADMIT, [this.key(messageId)], [String(jobTimestamp), String(Math.max(1, Math.ceil(ttlMs)))]);
    return typeof held !== 'string' || held === String(jobTimestamp) ? null : Number(held);
  }
}
