import { z } from 'zod';

/**
 * Liveness of the workers `tierflow up` runs: each sends `up` a beat over its IPC channel every
 * {@link LIVENESS_BEAT_MS}, from its event loop, so a worker whose loop is blocked (a busy loop, a
 * stuck native call, SIGSTOP) falls silent though its process lives on. Over the IPC channel, not
 * through Redis: a Redis outage must not get every worker killed. Pure.
 */

/** How often a worker beats. */
export const LIVENESS_BEAT_MS = 1_000;

/** The one message a worker sends `up`. */
export const workerBeatMessageSchema = z.strictObject({ kind: z.literal('beat') });
export type WorkerBeatMessage = z.infer<typeof workerBeatMessageSchema>;

export const BEAT_MESSAGE: WorkerBeatMessage = { kind: 'beat' };

/** Whether a message from a worker is its beat; anything else is ignored. */
export function isBeat(message: unknown): boolean {
  return workerBeatMessageSchema.safeParse(message).success;
}

/** Whether a worker last heard from at `lastBeatAt` has been silent past `limitMs` at `now`. */
export function isUnresponsive(lastBeatAt: number, now: number, limitMs: number): boolean {
  return now - lastBeatAt > limitMs;
}

/** How often `up` looks for silent workers: often enough to act within a beat of the limit. */
export function livenessCheckMs(limitMs: number): number {
  return Math.max(100, Math.min(LIVENESS_BEAT_MS, Math.floor(limitMs / 4)));
}
