import { checkOutput } from '@tierflow/core';
import { parseMessage, type DelegationPayload, type FormatMismatchPolicy, type OutcomeMessage, type OutcomeStatus } from '@tierflow/protocol';

/** Statuses that offer work as done, whose result is held to its schema; the others report why there is none. */
const CHECKED: ReadonlySet<OutcomeStatus> = new Set(['success', 'partial']);

/**
 * `expected_output_schema` (docs/protocol.md#expected-output-schemas): the outcome payload a tier
 * is about to send, checked against the schema its delegation carried (compiled once per schema,
 * in the core). A result that does not match goes out as `failed`, error_type `format_mismatch`,
 * every mismatch in error_detail; a schema that cannot be compiled as `invalid_output_schema`,
 * which is always permanent. A mismatch is as the delegation's `on_format_mismatch` says
 * (docs/protocol.md#error-policies): `reject` (the default) makes it permanent (`recoverable:
 * false`), since the same input to the same specialist tends to produce the same shape;
 * `escalate` makes it recoverable, for the sender to revise or re-route; `adapt` had its repair
 * pass where the work was done (the Fleet's), and what still does not match is escalated. The
 * work done stays attached (artifacts, result_refs) for whoever looks into it.
 */
export function withExpectedOutput(request: DelegationPayload, outcome: OutcomeMessage, onMismatch: FormatMismatchPolicy = 'reject'): OutcomeMessage {
  const schema = request.expected_output_schema;
  if (!schema || !CHECKED.has(outcome.payload.status)) return outcome;
  const check = checkOutput(schema, outcome.payload);
  if (check.ok) return outcome;
  const count = check.kind === 'format_mismatch' ? check.mismatches.length : 0;
  const failure =
    check.kind === 'format_mismatch'
      ? {
          summary: `the result does not match its expected_output_schema: ${count} mismatch${count === 1 ? '' : 'es'}`,
          error_detail: check.mismatches.join('; '),
        }
      : { summary: 'the delegation carries an expected_output_schema that cannot be used', error_detail: `not a usable JSON Schema: ${check.reason}` };
  return parseMessage({
    ...outcome,
    payload: { ...outcome.payload, ...failure, status: 'failed', confidence: 0, error_type: check.kind, recoverable: check.kind === 'format_mismatch' && onMismatch !== 'reject' },
  }) as OutcomeMessage;
}
