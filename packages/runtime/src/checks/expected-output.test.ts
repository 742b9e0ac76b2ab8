import { delegationPayloadSchema, validate, type OutcomeMessage } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { withExpectedOutput } from './expected-output.js';
import { buildOutcome } from '../messages/messages.js';

const request = (expected_output_schema?: Record<string, unknown>) => delegationPayloadSchema.parse({ task_type: 't', objective: 'o', ...(expected_output_schema ? { expected_output_schema } : {}) });
const outcome = (status: 'success' | 'partial' | 'failed', artifacts: unknown[] = []): OutcomeMessage =>
  buildOutcome(
    'SPECIALIZED_FLEET',
    'r.0-0.0-0.0-0',
    { status, summary: 's', confidence: 0.9, artifacts: artifacts as never, ...(status === 'success' ? {} : { error_type: 'e', error_detail: 'd', recoverable: true }) },
    12,
    Date.UTC(2026, 0, 1),
  );
const WANTS_CODE = { type: 'object', properties: { artifacts: { type: 'array', minItems: 1, items: { properties: { artifact_type: { const: 'code' } } } } } };

describe('withExpectedOutput', () => {
  it('leaves an outcome alone without a schema, or when it matches', () => {
    const plain = outcome('success');
    expect(withExpectedOutput(request(), plain)).toBe(plain);
    const code = outcome('success', [{ artifact_type: 'code', inline_content: 'x', content_ref: null }]);
    expect(withExpectedOutput(request(WANTS_CODE), code)).toBe(code);
  });

  it('makes a result that does not match a permanent failure naming every mismatch, keeping the work', () => {
    const text = outcome('partial', [{ artifact_type: 'text', inline_content: 'x', content_ref: null }]);
    const checked = withExpectedOutput(request(WANTS_CODE), text);
    expect(checked.payload).toMatchObject({
      status: 'failed',
      confidence: 0,
      error_type: 'format_mismatch',
      error_detail: '$.artifacts[0].artifact_type: must be "code"',
      recoverable: false,
      summary: 'the result does not match its expected_output_schema: 1 mismatch',
      execution_time_ms: 12,
      artifacts: text.payload.artifacts,
    });
    expect({ id: checked.id, correlation_id: checked.correlation_id }).toEqual({ id: text.id, correlation_id: text.correlation_id });
    expect(validate(checked).ok).toBe(true);
    expect(withExpectedOutput(request(WANTS_CODE), outcome('success')).payload.error_detail).toBe('$.artifacts: must NOT have fewer than 1 items');
  });

  it('reports a schema that cannot be compiled as invalid_output_schema', () => {
    expect(withExpectedOutput(request({ type: 12 }), outcome('success')).payload).toMatchObject({ status: 'failed', error_type: 'invalid_output_schema', recoverable: false });
    // Whatever the policy: no repair or revision mends the schema.
    expect(withExpectedOutput(request({ type: 12 }), outcome('success'), 'escalate').payload.recoverable).toBe(false);
  });

  it('leaves a mismatch recoverable under escalate, and under adapt, whose repair pass came before', () => {
    for (const policy of ['escalate', 'adapt'] as const) {
      expect(withExpectedOutput(request(WANTS_CODE), outcome('success'), policy).payload).toMatchObject({ status: 'failed', error_type: 'format_mismatch', recoverable: true });
    }
    expect(withExpectedOutput(request(WANTS_CODE), outcome('success'), 'reject').payload.recoverable).toBe(false);
  });

  it('does not hold a failure to the schema: it offers no result', () => {
    const failed = outcome('failed');
    expect(withExpectedOutput(request(WANTS_CODE), failed)).toBe(failed);
  });
});
