import type { OutcomePayload, OutcomePayloadInput } from '@tierflow/protocol';

/**
 * An outcome's fields as a policy writes them, checked field by field (the runtime's
 * `OutcomeDraft` is an `Omit` over a loose object, which keeps only its index signature).
 */
export type OutcomeFields = Pick<
  OutcomePayloadInput,
  'status' | 'summary' | 'result_refs' | 'confidence' | 'resources_used' | 'surprise_flag' | 'surprise_reason' | 'error_type' | 'error_detail' | 'recoverable' | 'artifacts'
>;

/** A child's outcome passed up as this tier's own, less the timing: the runtime times this tier's work. */
export function passUp(outcome: OutcomePayload): OutcomeFields {
  const { status, summary, result_refs, confidence, resources_used, surprise_flag, surprise_reason, error_type, error_detail, recoverable, artifacts } = outcome;
  return { status, summary, result_refs, confidence, resources_used, surprise_flag, surprise_reason, error_type, error_detail, recoverable, artifacts };
}

/**
 * The fields with a note of why a tier did not send the work round again (`not revised: …`,
 * docs/protocol.md#revisions) at the end of the summary, in brackets, and of the error_detail. Pure.
 */
export function withStopNote<T extends Pick<OutcomeFields, 'summary' | 'error_detail'>>(fields: T, note: string): T {
  return { ...fields, summary: `${fields.summary} (${note})`, error_detail: fields.error_detail ? `${fields.error_detail}; ${note}` : note };
}
