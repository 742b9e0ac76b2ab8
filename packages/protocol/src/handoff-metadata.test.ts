import { describe, expect, it } from 'vitest';
import { fastSafeParse } from './fast-parse.js';
import { handoffConstraintsSchema, inheritHandoffConstraints } from './handoff-metadata.js';
import { delegationPayloadSchema } from './payloads/delegation.js';
import { outcomePayloadSchema } from './payloads/outcome.js';

const outcome = { status: 'success', summary: 'done', confidence: 0.9, execution_time_ms: 1 };
const delegation = { task_type: 'solve', objective: 'do it' };

describe('handoff metadata on the wire', () => {
  it('leaves old outcomes and delegations valid: every field is optional', () => {
    const parsed = outcomePayloadSchema.parse(outcome);
    expect(parsed).not.toHaveProperty('format');
    expect(parsed).not.toHaveProperty('gaps');
    expect(delegationPayloadSchema.parse(delegation)).not.toHaveProperty('handoff');
  });

  it('takes an outcome with every field', () => {
    const metadata = { format: 'markdown', sources_count: 7, data_freshness: '2026-02-28', gaps: ['pricing data incomplete'], assumptions: ['market size from the 2025 report'] };
    expect(outcomePayloadSchema.parse({ ...outcome, ...metadata })).toMatchObject(metadata);
    expect(outcomePayloadSchema.parse({ ...outcome, data_freshness: '2026-02-28T10:00:00Z' }).data_freshness).toBe('2026-02-28T10:00:00Z');
    expect(outcomePayloadSchema.parse({ ...outcome, data_freshness: '2026-02-28T10:00:00+02:00' }).data_freshness).toBe('2026-02-28T10:00:00+02:00');
  });

  it.each([
    ['format', 'html'],
    ['sources_count', -1],
    ['sources_count', 1.5],
    ['data_freshness', 'last week'],
    ['data_freshness', '2026-02-30'],
    ['data_freshness', '2026-13-01'],
    ['gaps', 'one gap'],
    ['gaps', ['']],
    ['assumptions', [3]],
  ])('refuses an outcome whose %s is %j', (field, value) => {
    const result = outcomePayloadSchema.safeParse({ ...outcome, [field]: value });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path[0]).toBe(field);
    // The fast path the workers use agrees.
    expect(fastSafeParse(outcomePayloadSchema, { ...outcome, [field]: value }).success).toBe(false);
  });

  it('takes a delegation with a thread and handoff constraints', () => {
    const parsed = delegationPayloadSchema.parse({ ...delegation, thread_id: 'thread-43', handoff: { tone_isolation: true, cascade_check: false, max_context_tokens: 4000 } });
    expect(parsed).toMatchObject({ thread_id: 'thread-43', handoff: { tone_isolation: true, cascade_check: false, max_context_tokens: 4000 } });
  });

  it.each([[{ thread_id: '' }], [{ thread_id: 43 }], [{ handoff: { cascade_check: 'no' } }], [{ handoff: { max_context_tokens: 0 } }], [{ handoff: { max_context_tokens: 10.5 } }]])(
    'refuses a delegation with %j',
    (fields) => {
      expect(delegationPayloadSchema.safeParse({ ...delegation, ...fields }).success).toBe(false);
    },
  );

  it('inherits constraints field by field, the child’s own winning', () => {
    expect(inheritHandoffConstraints(undefined, undefined)).toBeUndefined();
    expect(inheritHandoffConstraints({ cascade_check: true }, undefined)).toEqual({ cascade_check: true });
    expect(inheritHandoffConstraints(undefined, { tone_isolation: false })).toEqual({ tone_isolation: false });
    expect(inheritHandoffConstraints({ cascade_check: true }, { cascade_check: false, max_context_tokens: 10 })).toEqual({ cascade_check: true, max_context_tokens: 10 });
    expect(handoffConstraintsSchema.parse({})).toEqual({});
  });
});
