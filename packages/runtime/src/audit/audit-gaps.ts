import type { TierName } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { appendAuditNow, type AuditEntry } from './audit-entry.js';
import { auditKey } from '../redis/keys.js';
import { errorKind, repeatedWarnings } from '../observability/logger.js';
import type { TierLogger } from '../policy/handler.js';

/** Runs whose lost entries one worker remembers; past it, losses are still counted and logged, not recorded per run. */
const RUNS_KEPT = 10_000;

/** How often a worker tries again to record its gaps while Redis refuses writes. */
export const GAP_RETRY_MS = 2_000;

/**
 * Entries a tier could not append (Redis refused the write: a read-only replica, a full memory,
 * an outage), counted per run and recorded in each run's trail once Redis takes writes again, as
 * one `gap` entry saying how many were lost and why. A trail never looks whole when it is not.
 * Only the entries appended on their own can be lost: those on a MULTI fail with the state change
 * they ride on, which is made again, and its entries with it.
 */
export class AuditGaps {
  private readonly missing = new Map<string, { count: number; cause: string }>();
  private timer: NodeJS.Timeout | null = null;
  private flushing = false;
  /** Every entry this worker lost, recorded or not. */
  total = 0;
  private readonly warn: (kind: string, fields?: Record<string, unknown>) => void;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly tier: TierName,
    private readonly ttlMs: number,
    log: TierLogger,
    private readonly time: () => string,
    private readonly retryMs: number = GAP_RETRY_MS,
  ) {
    this.warn = repeatedWarnings(log, 'audit entries lost');
  }

  /** An entry of `rootId`'s trail that could not be written. */
  lost(rootId: string, error: unknown): void {
    this.total++;
    const cause = error instanceof Error ? error.message : String(error);
    const seen = this.missing.get(rootId);
    if (seen) seen.count++;
    else if (this.missing.size < RUNS_KEPT) this.missing.set(rootId, { count: 1, cause });
    this.warn(errorKind(error), { root: rootId, error: cause, lost_so_far: this.total });
    this.timer ??= setTimeout(() => void this.flush(), this.retryMs).unref();
  }

  /** Runs with lost entries not yet recorded in their trails. */
  get pending(): number {
    return this.missing.size;
  }

  /** Records each run's gap in its trail; what Redis still refuses waits for the next try. */
  async flush(): Promise<void> {
    this.timer = null;
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (const [rootId, { count, cause }] of [...this.missing]) {
        // NX: the trail keeps its own TTL; a gap in a trail that never opened starts one.
        const written = await appendAuditNow(this.redis, auditKey(this.prefix, rootId), [this.entry(count, cause)], this.ttlMs, true).then(
          () => true,
          () => false,
        );
        if (!written) break;
        // Entries lost while this one was written wait for the next gap.
        const now = this.missing.get(rootId)!;
        if (now.count === count) this.missing.delete(rootId);
        else now.count -= count;
      }
    } finally {
      this.flushing = false;
      if (this.missing.size > 0) this.timer ??= setTimeout(() => void this.flush(), this.retryMs).unref();
    }
  }

  /** Stops trying (a stopping worker); what is not recorded by then stays in the log alone. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private entry(count: number, cause: string): AuditEntry {
    const detail = `${count} ${count === 1 ? 'entry' : 'entries'} by this tier lost: ${cause}`;
    return { time: this.time(), from: this.tier, to: this.tier, kind: 'gap', direction: 'sent', id: '', correlation_id: '', status: '', confidence: null, by: this.tier, attempt: null, detail };
  }
}
