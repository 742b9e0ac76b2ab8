import type { RuntimeOptions } from './options.js';

/**
 * Records of unfinished work (step state, cancellation marks, timeout records, races) must
 * outlive the work itself, however long it waits, so their TTL is not the retention of finished
 * jobs: they are deleted when their work finishes, and this TTL is only a backstop against leaks.
 */
export const IN_FLIGHT_BACKSTOP_MS = 7 * 24 * 3600_000;

export function inFlightTtlMs(runtime: Pick<RuntimeOptions, 'keepFinishedMs'>): number {
  return Math.max(runtime.keepFinishedMs, IN_FLIGHT_BACKSTOP_MS);
}

/** BullMQ's retention of finished jobs, applied by the workers (jobs set none of their own). */
export function finishedJobRetention(runtime: Pick<RuntimeOptions, 'keepFinishedMs'>): { age: number } {
  return { age: Math.ceil(runtime.keepFinishedMs / 1000) };
}
