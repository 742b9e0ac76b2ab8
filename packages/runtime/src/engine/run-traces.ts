import type { RedisClient } from '@tierflow/beads';
import type { ControlKeys } from '../redis/keys.js';
import { throttledWarning } from '../observability/logger.js';
import type { TierLogger } from '../policy/handler.js';

/** How many recorded runs' traces a root's worker remembers until their spans go out; the oldest are forgotten first. */
export const REMEMBERED_RUN_TRACES = 10_000;

/**
 * The runs' traces this process recorded as roots (trace id to root id), so that once the
 * collector took spans of one, the run's trace is marked exported: `tierflow trace` and the API
 * give a link only to a trace that reached a collector. The telemetry exporter tells which traces
 * went out; this is where that news meets Redis, one pipeline per export.
 */
export class RunTraces {
  private readonly roots = new Map<string, string>();
  private readonly failed: (fields?: Record<string, unknown>) => void;
  private closed = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: ControlKeys,
    /** As long as the trace id is kept: the time a finished run is kept. */
    private readonly ttlMs: number,
    log: TierLogger,
    private readonly limit = REMEMBERED_RUN_TRACES,
  ) {
    this.failed = throttledWarning(log, "could not mark runs' traces exported");
  }

  /** The root `rootId` recorded `traceId` as its run's trace. */
  recorded(traceId: string, rootId: string): void {
    this.roots.delete(traceId);
    this.roots.set(traceId, rootId);
    if (this.roots.size > this.limit) this.roots.delete(this.roots.keys().next().value!);
  }

  /** The worker is closing its connection: the last exports, sent as the process stops, are not marked (and nothing warns). */
  close(): void {
    this.closed = true;
  }

  /** Marks exported the runs of those of `traceIds` this process recorded; never throws. */
  async exported(traceIds: Iterable<string>): Promise<void> {
    const pipeline = this.redis.pipeline();
    let marks = 0;
    for (const traceId of traceIds) {
      const rootId = this.roots.get(traceId);
      if (rootId === undefined) continue;
      // Once is enough: a later round of the run records it again, and marks it again.
      this.roots.delete(traceId);
      pipeline.set(this.keys.traceExported(rootId), traceId, 'PX', this.ttlMs);
      marks++;
    }
    if (marks === 0 || this.closed) return;
    try {
      const replies = (await pipeline.exec()) ?? [];
      const error = replies.find(([failure]) => failure)?.[0];
      if (error) this.failed({ error: error.message });
    } catch (error) {
      // Redis is down or the worker is closing: the run keeps its trace id, without a link.
      this.failed({ error: error instanceof Error ? error.message : String(error) });
    }
  }
}
