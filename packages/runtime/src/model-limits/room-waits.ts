import { z } from 'zod';

/** Most waiters one room notice names: a settle frees one slot, so it names few. */
export const MAX_ROOM_IDS = 64;

/**
 * The notice a settle that frees room at a model sends on the control channel: the reservation
 * ids now first in turn, which may ask again at once. Anyone who may publish can send one, so it
 * is parsed like any other input; a notice only hurries a waiter to ask again, and the limiter's
 * script decides.
 */
export const roomNoticeSchema = z.strictObject({
  kind: z.literal('room'),
  ids: z.array(z.string().min(1).max(512)).min(1).max(MAX_ROOM_IDS),
});
export type RoomNotice = z.infer<typeof roomNoticeSchema>;

/**
 * The calls of this process waiting for room at a model (a concurrent slot, or their turn behind
 * others), by reservation id. Nobody knows when a call in flight ends, so without notices a waiter
 * asks again on a short poll: the freed slot idles until then, and every waiter's asking costs
 * Redis a script. With them, a waiter sleeps until a settle anywhere names it, or its longest wait
 * passes (a notice lost while the subscription reconnects costs that much, no more).
 */
export class RoomWaits {
  private readonly waiting = new Map<string, () => void>();

  /** Waiting calls now. */
  get size(): number {
    return this.waiting.size;
  }

  /**
   * Resolves when a notice names `id`, after `ms`, or when `signal` fires, whichever comes
   * first: the caller asks again, or sees its signal.
   */
  wait(id: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal.aborted) {
        resolve();
        return;
      }
      const wake = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', wake);
        if (this.waiting.get(id) === wake) this.waiting.delete(id);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      signal.addEventListener('abort', wake, { once: true });
      this.waiting.get(id)?.();
      this.waiting.set(id, wake);
    });
  }

  /** Wakes the waiters of this process that `ids` name; the others are another process's. */
  wake(ids: readonly string[]): void {
    for (const id of ids) this.waiting.get(id)?.();
  }
}
