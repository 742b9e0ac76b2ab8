import type { RedisClient } from '@tierflow/beads';
import { readAbortNotice } from './control-notice.js';

/** Why a running handler was stopped; the runtime answers with this status. */
export interface StopReason {
  readonly status: 'cancelled' | 'timeout';
  readonly reason: string;
  /** The error_type to answer with when it is not the status itself (a run stopped over its budget). */
  readonly errorType?: string;
}

export function isStopReason(value: unknown): value is StopReason {
  return typeof value === 'object' && value !== null && 'status' in value && 'reason' in value;
}

export interface RunningHandlersOptions {
  /**
   * When messages are signed: which of the ids a notice names carry a durable mark that
   * verifies. A notice alone, which anyone who can publish could send, then stops nothing.
   */
  readonly verify?: ((ids: readonly string[]) => Promise<readonly string[]>) | null;
  /** Told of every notice dropped as malformed, with why; it must not throw. */
  readonly onRefused?: (reason: string) => void;
}

/**
 * The handlers running in this process, by job id, and the subscription that aborts them when a
 * cancellation reaches the control channel from any process. Whatever arrives on the channel is
 * parsed first: a malformed notice is dropped and reported, never thrown into the connection's
 * event handler, where it would end the process.
 */
export class RunningHandlers {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly subscriber: RedisClient,
    private readonly channel: string,
    private readonly options: RunningHandlersOptions = {},
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
    const read = readAbortNotice(typeof text === 'string' ? text : String(text));
    if (!read.ok) {
      this.options.onRefused?.(read.reason);
      return;
    }
    const { notice } = read;
    const here = notice.ids.filter((id) => this.running.has(id));
    if (here.length === 0) return;
    const stop: StopReason = { status: notice.status, reason: notice.reason, ...(notice.error_type ? { errorType: notice.error_type } : {}) };
    const verify = this.options.verify;
    if (!verify) {
      for (const id of here) this.running.get(id)?.abort(stop);
      return;
    }
    void verify(here).then(
      (verified) => verified.forEach((id) => this.running.get(id)?.abort(stop)),
      () => undefined,
    );
  }
}
