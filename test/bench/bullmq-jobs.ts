import type { JobsOptions } from 'bullmq';

/** The plain-BullMQ version of the bench shape: one queue per tier, each delegating to the one below. */
export type ShapeTier = 'monitor' | 'architect' | 'dispatcher' | 'fleet';

export const SHAPE_TIERS: readonly ShapeTier[] = ['monitor', 'architect', 'dispatcher', 'fleet'];

export const BELOW: Readonly<Record<ShapeTier, ShapeTier | null>> = { monitor: 'architect', architect: 'dispatcher', dispatcher: 'fleet', fleet: null };

export const FAN_OUT: Readonly<Record<ShapeTier, number>> = { monitor: 1, architect: 1, dispatcher: 3, fleet: 0 };

export interface ShapeData {
  readonly index: number;
  /** Set once a parent has added its children: the next pass is the resume. */
  readonly step?: 'waiting';
}

// What Tierflow gives every job (retries with back-off, finished jobs kept 24 h by age), minus
// priority, which plain BullMQ does not need.
export function shapeJobOptions(jobId: string): JobsOptions {
  const keepSeconds = 24 * 3600;
  return {
    jobId,
    attempts: 3,
    backoff: { type: 'exponential', delay: 200 },
    removeOnComplete: { age: keepSeconds },
    removeOnFail: { age: keepSeconds },
  };
}
