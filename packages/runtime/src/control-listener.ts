import type { Redis } from 'ioredis';
import type { AbortNotice } from './cancel.js';

/** Why a running handler was stopped; the runtime answers with this status. */
export interface StopReason {
  readonly status: 'cancelled' | 'timeout';
  readonly reason: string;
}

export function isStopReason(value: unknown): value is StopReason {
  return typeof value === 'object' && value !== null && 'status' in value && 'reason' in value;
}

/**
 * The handlers running in this process, by job id, and the subscription that aborts them when a
 * cancellation reaches the control channel from any process.
 */
export class RunningHandlers {
  private readonly running = new Map<string, AbortController>();

  /**
   * `verify` (when messages are signed) answers which of the ids a notice names carry a durable
   * mark that verifies: a notice alone, which anyone who can publish could send, stops nothing.
   */
  constructor(
    private readonly subscriber: Redis,
    private readonly channel: string,
    private readonly verify: ((ids: readonly string[]) => Promise<readonly string[]>) | null = null,
  ) {
    subscriber.on('message', (_channel: string, text: string) => this.onNotice(text));
  }

  async listen(): Promise<void> {
    await this.subscriber.subscribe(this.channel);
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

  close(): void {
    this.subscriber.disconnect();
  }

  private onNotice(text: string): void {
    let notice: AbortNotice;
    try {
      notice = JSON.parse(text) as AbortNotice;
    } catch {
      return;
    }
    if (notice.kind !== 'cancel' || !Array.isArray(notice.ids)) return;
    const stop: StopReason = { status: notice.status === 'timeout' ? 'timeout' : 'cancelled', reason: String(notice.reason) };
    const here = (notice.ids as readonly unknown[]).filter((id): id is string => typeof id === 'string' && this.running.has(id));
    if (here.length === 0) return;
    if (!this.verify) {
      for (const id of here) this.running.get(id)?.abort(stop);
      return;
    }
    void this.verify(here).then(
      (verified) => verified.forEach((id) => this.running.get(id)?.abort(stop)),
      () => undefined,
    );
  }
}
