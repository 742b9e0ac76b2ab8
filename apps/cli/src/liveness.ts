import { z } from 'zod';

/**
 * Liveness of the workers `tierflow up` runs: each sends `up` a beat over its IPC channel every
 * {@link LIVENESS_BEAT_MS}, from its event loop, so a worker whose loop is blocked (a busy loop, a
 * stuck native call, SIGSTOP) falls silent though its process lives on. Over the IPC channel, not
 * through Redis: a Redis outage must not get every worker killed. Pure.
 */

/** How often a worker beats. */
export const LIVENESS_BEAT_MS = 1_000;

/**
 * Until a worker is ready, it may be silent this long whatever the limit: loading a project file
 * (TypeScript compiled as it loads) blocks its event loop, for many seconds on a loaded machine.
 */
export const START_LIVENESS_MS = 120_000;

/** What a worker sends `up`: its beat, and once that it is ready (taking jobs). */
export const workerMessageSchema = z.discriminatedUnion('kind', [z.strictObject({ kind: z.literal('beat') }), z.strictObject({ kind: z.literal('ready') })]);
export type WorkerMessage = z.infer<typeof workerMessageSchema>;

export const BEAT_MESSAGE: WorkerMessage = { kind: 'beat' };
export const READY_MESSAGE: WorkerMessage = { kind: 'ready' };

/** What a message from a worker says: a beat, ready, or null for anything else (ignored). */
export function workerMessageKind(message: unknown): WorkerMessage['kind'] | null {
  const read = workerMessageSchema.safeParse(message);
  return read.success ? read.data.kind : null;
}

/** How long a worker may be silent: `limitMs` once it is ready, at least {@link START_LIVENESS_MS} while it starts. */
export function livenessLimitMs(limitMs: number, ready: boolean): number {
  return ready ? limitMs : Math.max(limitMs, START_LIVENESS_MS);
}

/** Whether a worker last heard from at `lastBeatAt` has been silent past `limitMs` at `now`. */
export function isUnresponsive(lastBeatAt: number, now: number, limitMs: number): boolean {
  return now - lastBeatAt > limitMs;
}

/** How often `up` looks for silent workers: often enough to act within a beat of the limit. */
export function livenessCheckMs(limitMs: number): number {
  return Math.max(100, Math.min(LIVENESS_BEAT_MS, Math.floor(limitMs / 4)));
}
