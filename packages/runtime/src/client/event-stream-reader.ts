import type { RedisClient } from '@tierflow/beads';
import { entriesOf, monitorEventOf, type MonitorEvent } from './monitor-events.js';

/** What the reader tells its owner. Handlers must not throw; if one does, the reader goes on. */
export interface EventStreamHandlers {
  event(event: MonitorEvent): void;
  /** The connection came back after a drop, or a read failed: events may have been missed. */
  gap(): void;
  /** Something was wrong (a read error, an unreadable reply); `kind` groups repeats of one problem. */
  problem(kind: string, message: string): void;
}

const BLOCK_MS = 5_000;
const BATCH = 1_000;
const RETRY_MS = 1_000;

/**
 * Follows a BullMQ queue's event stream from a given id with XREAD on a connection of its own.
 * BullMQ's QueueEvents is not used: it parses a completed event's return value inside its read
 * loop, so one entry that is not JSON ends the loop for good (and, with no `error` listener,
 * the process). Here every entry is parsed before use, a bad one is reported and passed over,
 * and a failed read is retried; the owner reconciles on {@link EventStreamHandlers.gap}.
 */
export class EventStreamReader {
  private closed = false;
  /** Whether a 'ready' from now on is a reconnect: the connection may have been ready before this was made. */
  private connectedOnce: boolean;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private lastId: string,
    private readonly handlers: EventStreamHandlers,
  ) {
    this.connectedOnce = redis.status === 'ready';
    // ioredis reconnects by itself and sends the pending XREAD again, from the same id; what was
    // trimmed or lost meanwhile is for the owner to find.
    redis.on('ready', () => {
      if (this.connectedOnce) this.safely(() => handlers.gap());
      this.connectedOnce = true;
    });
    void this.run();
  }

  /** Stops reading and drops the connection (a blocked read ends with it). */
  close(): void {
    this.closed = true;
    this.redis.disconnect();
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      let reply: unknown;
      try {
        reply = await this.redis.xread('COUNT', BATCH, 'BLOCK', BLOCK_MS, 'STREAMS', this.key, this.lastId);
      } catch (error) {
        if (this.closed) return;
        this.safely(() => this.handlers.problem('read', `cannot read ${this.key}: ${(error as Error).message}; retrying`));
        this.safely(() => this.handlers.gap());
        await pause();
        continue;
      }
      // A reply that moved nothing on would come back the same at once: wait before asking again.
      if (!this.take(reply)) await pause();
    }
  }

  /** Hands the reply's events on; false when it held something but no entry to move past. */
  private take(reply: unknown): boolean {
    const read = entriesOf(reply);
    if (read === null) {
      this.safely(() => this.handlers.problem('reply', `XREAD on ${this.key} answered something that is not a stream reply`));
      return false;
    }
    if (read.unreadable > 0) this.safely(() => this.handlers.problem('unreadable_entry', `${read.unreadable} entries of ${this.key} without an id`));
    for (const entry of read.entries) {
      this.lastId = entry.id;
      const event = monitorEventOf(entry.fields);
      this.safely(() => this.handlers.event(event));
    }
    return read.entries.length > 0 || read.unreadable === 0;
  }

  private safely(call: () => void): void {
    try {
      call();
    } catch (error) {
      // A handler's bug must not stop the reader: it is what every waiter relies on.
      try {
        this.handlers.problem('handler', `an event handler threw: ${(error as Error).message}`);
      } catch {
        // nothing more to do
      }
    }
  }
}

function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
}
