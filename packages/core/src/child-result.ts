import type { OutcomeStatus } from '@tierflow/protocol';

/** One child of a fan-out as the aggregate step sees it: its outcome, reduced to what aggregation needs. */
export interface ChildResult {
  readonly message_id: string;
  /** Who handled the child; empty when it never reached one. */
  readonly specialist: string;
  readonly status: OutcomeStatus;
  /** Self-assessed, within [0, 1]. */
  readonly confidence: number;
  readonly error_type?: string | null;
  readonly error_detail?: string | null;
  readonly recoverable?: boolean | null;
}

/** How a child's status counts towards its fan-out. */
export const CHILD_CLASSES = ['succeeded', 'progressed', 'failed', 'asks', 'waits', 'cancelled'] as const;
export type ChildClass = (typeof CHILD_CLASSES)[number];

/**
 * Every status's class. `throttled` is a failure here: a child still throttled when its parent
 * aggregates has run out of retries. `cancelled` is not a failure: a higher tier stopped it or it
 * lost a first_success race, so it is left out of the counting base. `blocked` waits on something
 * outside the run: not a failure to revise or retry, its blockers flow up.
 */
export const CHILD_CLASS_OF: Readonly<Record<OutcomeStatus, ChildClass>> = {
  success: 'succeeded',
  partial: 'progressed',
  failed: 'failed',
  blocked: 'waits',
  timeout: 'failed',
  throttled: 'failed',
  needs_clarification: 'asks',
  cancelled: 'cancelled',
};

export function classifyChild(child: Pick<ChildResult, 'status'>): ChildClass {
  return CHILD_CLASS_OF[child.status];
}

/** How many children fell in each class; `total` is every child, cancelled ones included. */
export interface AggregationCounts {
  readonly total: number;
  readonly succeeded: number;
  readonly progressed: number;
  readonly failed: number;
  readonly asks: number;
  /** Children blocked on an external dependency. */
  readonly waits: number;
  readonly cancelled: number;
}

export function countChildren(children: readonly Pick<ChildResult, 'status'>[]): AggregationCounts {
  const counts: Record<ChildClass, number> = { succeeded: 0, progressed: 0, failed: 0, asks: 0, waits: 0, cancelled: 0 };
  for (const child of children) counts[classifyChild(child)] += 1;
  return { total: children.length, ...counts };
}

/** The counting base n: every child that was not cancelled. */
export function countedChildren(counts: AggregationCounts): number {
  return counts.total - counts.cancelled;
}

/**
 * Whether a failed child may succeed if tried again. A throttled child always may (the receiver
 * said "try later"); any other only when it did not say `recoverable: false`.
 */
export function isRecoverableFailure(child: ChildResult): boolean {
  return child.status === 'throttled' || child.recoverable !== false;
}

/** The name a report uses for a child: its specialist, or its message id when it never reached one. */
export function childName(child: Pick<ChildResult, 'specialist' | 'message_id'>): string {
  return child.specialist.trim() === '' ? child.message_id : child.specialist;
}

/** A trimmed string, or null when it is missing or blank. */
export function nonBlank(text: string | null | undefined): string | null {
  const trimmed = text?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}
