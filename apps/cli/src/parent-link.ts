import { BEAT_MESSAGE, LIVENESS_BEAT_MS } from './liveness.js';

/** A worker's link to the `tierflow up` that started it, over the IPC channel `up` opens. */
export interface ParentLink {
  /** Resolves once `up` is gone: it stopped, or died (even by SIGKILL), and the channel closed. */
  readonly gone: Promise<void>;
}

/**
 * Beats to `up` every {@link LIVENESS_BEAT_MS} (liveness.ts), and watches for it going away: the
 * kernel closes the channel when `up` dies, however it dies, so a worker never outlives its `up`
 * (a restarted `up` would otherwise run every tier twice). Null for a worker started some other
 * way (no IPC channel). Neither the beat nor the channel keeps the process alive.
 */
export function linkToParent(): ParentLink | null {
  if (typeof process.send !== 'function' || !process.connected) return null;
  const beat = (): void => {
    // A send after `up` is gone fails; the disconnect says so.
    if (process.connected) process.send?.(BEAT_MESSAGE, undefined, undefined, () => undefined);
  };
  const timer = setInterval(beat, LIVENESS_BEAT_MS);
  timer.unref();
  beat();
  const gone = new Promise<void>((resolve) =>
    process.once('disconnect', () => {
      clearInterval(timer);
      // Nothing reads this process's output any more: writes to it fail, and must not end it.
      for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
      resolve();
    }),
  );
  process.channel?.unref();
  return { gone };
}
