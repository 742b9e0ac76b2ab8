import type { OutcomePayload, OutcomePayloadInput } from '@tierflow/protocol';
import type { SurpriseVerdict } from './surprise.js';

/**
 * An outcome's fields as this policy writes them, checked field by field (the runtime's
 * `OutcomeDraft` is an `Omit` over a loose object, which keeps only its index signature).
 */
export type OutcomeFields = Pick<
  OutcomePayloadInput,
  'status' | 'summary' | 'result_refs' | 'confidence' | 'resources_used' | 'surprise_flag' | 'surprise_reason' | 'error_type' | 'error_detail' | 'recoverable' | 'artifacts'
> & { readonly execution_time_ms?: number };

/** The Architect's outcome as it came, less the timing. */
export function passUp(outcome: OutcomePayload): OutcomeFields {
  const { status, summary, result_refs, confidence, resources_used, surprise_flag, surprise_reason, error_type, error_detail, recoverable, artifacts } = outcome;
  return { status, summary, result_refs, confidence, resources_used, surprise_flag, surprise_reason, error_type, error_detail, recoverable, artifacts };
}

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
export function evaluatedReport(outcome: OutcomePayload, evaluation: Evaluation): OutcomeFields {
  const flag = evaluation.surprise.flag || outcome.surprise_flag;
  const reasons = [evaluation.surprise.reason, outcome.surprise_flag ? outcome.surprise_reason : null].filter((reason) => reason !== null);
  return {
    ...passUp(outcome),
    execution_time_ms: Math.max(0, Math.round(evaluation.durationMs)),
    resources_used: { ...outcome.resources_used, resets: evaluation.resets },
    surprise_flag: flag,
    surprise_reason: flag && reasons.length > 0 ? reasons.join('; ') : null,
  };
}
