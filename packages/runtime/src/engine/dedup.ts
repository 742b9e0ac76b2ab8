import { seenMessagesRedisPrefix } from '@tierflow/beads';
import { validate, type OutcomeMessage, type TierName } from '@tierflow/protocol';
import type { FencedBatch } from '../redis/fenced-batch.js';

/**
 * De-duplication (docs/protocol.md#de-duplication): each tier caches the outcome it sent for a
 * message id under `beads:system/seen-messages/{tier}/{id}`, and answers a second delivery from
 * the cache without running its handler again. The record is read with the rest of a pass's facts
 * (`JobFactsReader`) and written in the pass's fenced batch, so this only names and parses it.
 */
export class DedupCache {
  private readonly base: string;

  constructor(
    prefix: string,
    tier: TierName,
    private readonly ttlMs: number,
  ) {
    this.base = seenMessagesRedisPrefix(prefix, tier);
  }

  key(messageId: string): string {
    return this.base + messageId;
  }

  /** A cached outcome as stored, or null: a corrupt entry is ignored, so the handler runs again rather than answering garbage. */
  parse(text: string): OutcomeMessage | null {
    const result = validate(text);
    return result.ok ? (result.value as OutcomeMessage) : null;
  }

  /** Queues the write of `outcome`, which the job returns, as the answer to `messageId`. */
  record(batch: FencedBatch, messageId: string, outcome: OutcomeMessage): void {
    batch.setReturnValue(this.key(messageId), outcome, this.ttlMs);
  }
}
