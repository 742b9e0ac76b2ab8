import { TIER_SLUGS } from '@tierflow/beads';
import { validate, type OutcomeMessage, type TierName } from '@tierflow/protocol';
import type { Redis } from 'ioredis';
import type { RedisWrites } from './fenced-batch.js';

/**
 * Seed 000's de-duplication: each tier caches the outcome it sent for a message id under
 * `beads:system/seen-messages/{tier}/{id}`, and answers a second delivery from the cache
 * without running its handler again.
 */
export class DedupCache {
  private readonly base: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    tier: TierName,
    private readonly ttlMs: number,
  ) {
    this.base = `${prefix}:beads:system/seen-messages/${TIER_SLUGS[tier]}/`;
  }

  key(messageId: string): string {
    return this.base + messageId;
  }

  /** The cached outcome, or null. A corrupt entry is ignored: the handler runs again rather than answering garbage. */
  async get(messageId: string): Promise<OutcomeMessage | null> {
    const text = await this.redis.get(this.key(messageId));
    return text === null ? null : this.parse(text);
  }

  parse(text: string): OutcomeMessage | null {
    const result = validate(text);
    return result.ok ? (result.value as OutcomeMessage) : null;
  }

  /** Queues the write of `outcome` as the answer to `messageId` on a pipeline. */
  record(pipeline: RedisWrites, messageId: string, outcome: OutcomeMessage): void {
    pipeline.set(this.key(messageId), JSON.stringify(outcome), 'PX', this.ttlMs);
  }
}
