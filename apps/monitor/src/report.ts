import { withoutUsage } from '@tierflow/core';
import type { OutcomePayload } from '@tierflow/protocol';
import { passUp, type OutcomeFields } from '@tierflow/runtime/policy';
import type { SurpriseVerdict } from './surprise.js';

/** The root's fields: the Architect's, and the whole run's duration, which the Monitor times itself. */
export type MonitorOutcome = OutcomeFields & { readonly execution_time_ms?: number };

/** What the Monitor adds to the Architect's outcome. */
export interface Evaluation {
  readonly surprise: SurpriseVerdict;
  readonly resets: number;
  /** The whole run, resets included, as the Monitor timed it. */
  readonly durationMs: number;
}

/**
 * The root's result: the Architect's outcome with the Monitor's surprise verdict, the resets in
 * `resources_used`, and the whole run's duration as `execution_time_ms` (the runtime would time
 * only the Monitor's last pass). A surprise a lower tier already flagged is kept beside the
 * Monitor's own. Pure.
 */
export function evaluatedReport(outcome: OutcomePayload, evaluation: Evaluation): MonitorOutcome {
  const flag = evaluation.surprise.flag || outcome.surprise_flag;
  const reasons = [evaluation.surprise.reason, outcome.surprise_flag ? outcome.surprise_reason : null].filter((reason) => reason !== null);
  return {
    ...passUp(outcome),
    execution_time_ms: Math.max(0, Math.round(evaluation.durationMs)),
    // The Architect's usage is the runtime's to add (with every reset's): a copy would count twice.
    resources_used: { ...withoutUsage(outcome.resources_used), resets: evaluation.resets },
    surprise_flag: flag,
    surprise_reason: flag && reasons.length > 0 ? reasons.join('; ') : null,
  };
}
