import { BEAT_MESSAGE, LIVENESS_BEAT_MS, READY_MESSAGE } from './liveness.js';

/** A worker's link to the `tierflow up` that started it, over the IPC channel `up` opens. */
export interface ParentLink {
  /** Resolves once `up` is gone: it stopped, or died (even by SIGKILL), and the channel closed. */
  readonly gone: Promise<void>;
  /** Tells `up` the worker is ready: from now on its liveness limit holds (until then, its start's). */
  ready(): void;
}

/**
 * Beats to `up` every {@link LIVENESS_BEAT_MS} (liveness.ts), and watches for it going away: the
 * kernel closes the channel when `up` dies, however it dies, so a worker never outlives its `up`
 * (a restarted `up` would otherwise run every tier twice). Null for a worker started some other
 * way (no IPC channel). Neither the beat nor the channel keeps the process alive.
 */
export function linkToParent(): ParentLink | null {
  if (typeof process.send !== 'function' || !process.connected) return null;
  // A send after `up` is gone fails; the disconnect says so.
  const send = (message: typeof BEAT_MESSAGE): void => {
    if (process.connected) process.send?.(message, undefined, undefined, () => undefined);
  };
  const beat = (): void => send(BEAT_MESSAGE);
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
  return { gone, ready: () => send(READY_MESSAGE) };
}
