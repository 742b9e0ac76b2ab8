import type { CancellationMessage } from '@tierflow/protocol';
import type { RedisClient } from '@tierflow/beads';
import { readControlNotice } from './control-notice.js';

/** Why a running handler was stopped; the runtime answers with this status. */
export interface StopReason {
  readonly status: 'cancelled' | 'timeout';
  readonly reason: string;
  /** The error_type to answer with when it is not the status itself (a run stopped over its budget). */
  readonly errorType?: string;
  /** The durable mark that stopped it, as read and checked, when a mark did: the audit records it as the cancellation received. */
  readonly cancellation?: CancellationMessage;
}

/** What a cancellation mark stops a job with: `cancelled`, the error_type the mark names, if any, and the mark. */
export function markStop(mark: CancellationMessage): StopReason {
  const errorType = mark.payload.error_type;
  return { status: 'cancelled', reason: mark.payload.reason, ...(typeof errorType === 'string' ? { errorType } : {}), cancellation: mark };
}

export function isStopReason(value: unknown): value is StopReason {
  return typeof value === 'object' && value !== null && 'status' in value && 'reason' in value;
}

export interface RunningHandlersOptions {
  /**
   * The cancellation mark that holds (and verifies, when messages are signed) for each of these
   * jobs, by id, read in one round trip. A handler is stopped only by its durable mark: a notice
   * alone, which anyone who can publish could send, stops nothing.
   */
  readonly marks: (ids: readonly string[]) => Promise<ReadonlyMap<string, CancellationMessage>>;
  /** Told of every notice dropped as malformed, with why; it must not throw. */
  readonly onRefused?: (reason: string) => void;
  /** Told when the marks of a notice's jobs could not be read (their handlers run on); it must not throw. */
  readonly onUnread?: (error: unknown) => void;
  /** Told the waiters a room notice names (model-limits/room-waits.ts); it must not throw. */
  readonly onRoom?: (ids: readonly string[]) => void;
}

/**
 * The handlers running in this process, by job id, and the subscription that aborts them when a
 * cancellation reaches the control channel from any process. Whatever arrives on the channel is
 * parsed first: a malformed notice is dropped and reported, never thrown into the connection's
 * event handler, where it would end the process. A notice only says where to look: the handlers
 * it names that run here are stopped by their marks, read for all of them at once, and each
 * carries its mark on, so answering it reads nothing more.
 */
export class RunningHandlers {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly subscriber: RedisClient,
    private readonly channel: string,
    private readonly options: RunningHandlersOptions,
  ) {
    subscriber.on('smessage', (_channel: string, text: unknown) => {
      try {
        this.onNotice(text);
      } catch (error) {
        // Nothing here should throw; if it ever does, it must not reach ioredis's socket handler.
        this.options.onRefused?.(`notice handling failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  }

  async listen(): Promise<void> {
    await this.subscriber.ssubscribe(this.channel);
  }

  /** Registers a handler run; abort it through the returned controller. */
  start(jobId: string): AbortController {
    const controller = new AbortController();
    this.running.set(jobId, controller);
    return controller;
  }

  finish(jobId: string): void {
    this.running.delete(jobId);
  }

  /** Handler runs under way now. */
  get size(): number {
    return this.running.size;
  }

  /** The jobs whose handlers run now. */
  get jobIds(): string[] {
    return [...this.running.keys()];
  }

  close(): void {
    this.subscriber.disconnect();
  }

  private onNotice(text: unknown): void {
    const read = readControlNotice(typeof text === 'string' ? text : String(text));
    if (!read.ok) {
      this.options.onRefused?.(read.reason);
      return;
    }
    if (read.notice.kind === 'room') {
      this.options.onRoom?.(read.notice.ids);
      return;
    }
    const here = read.notice.ids.filter((id) => this.running.has(id));
    if (here.length === 0) return;
    void this.options.marks(here).then(
      (marks) => marks.forEach((mark, id) => this.running.get(id)?.abort(markStop(mark))),
      (error: unknown) => this.options.onUnread?.(error),
    );
  }
}
