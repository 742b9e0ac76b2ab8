import { describe, expect, it } from 'vitest';
import { DEFAULT_ERROR_POLICY, errorPolicySchema, inheritErrorPolicy, resolveErrorPolicy } from './error-policy.js';

describe('error policies', () => {
  it('resolve field by field over the deployment’s, which defaults to the behaviour without policies', () => {
    expect(DEFAULT_ERROR_POLICY).toEqual({ on_low_confidence: 'escalate', on_format_mismatch: 'reject', on_timeout: 'escalate' });
    expect(resolveErrorPolicy(undefined)).toEqual(DEFAULT_ERROR_POLICY);
    expect(resolveErrorPolicy({ on_timeout: 'partial_result' }, { ...DEFAULT_ERROR_POLICY, on_format_mismatch: 'adapt' })).toEqual({
      on_low_confidence: 'escalate',
      on_format_mismatch: 'adapt',
      on_timeout: 'partial_result',
    });
  });

  it('are inherited down the tree, a child’s own fields over its parent’s', () => {
    expect(inheritErrorPolicy(undefined, undefined)).toBeUndefined();
    expect(inheritErrorPolicy({ on_timeout: 'escalate' }, undefined)).toEqual({ on_timeout: 'escalate' });
    expect(inheritErrorPolicy(undefined, { on_low_confidence: 'retry' })).toEqual({ on_low_confidence: 'retry' });
    expect(inheritErrorPolicy({ on_low_confidence: 'escalate' }, { on_low_confidence: 'retry', on_timeout: 'partial_result' })).toEqual({
      on_low_confidence: 'escalate',
      on_timeout: 'partial_result',
    });
  });

  it('refuse a strategy a situation does not have, and a field the protocol does not know', () => {
    expect(errorPolicySchema.safeParse({ on_timeout: 'retry' }).success).toBe(false);
    expect(errorPolicySchema.safeParse({ on_low_confidence: 'adapt' }).success).toBe(false);
    expect(errorPolicySchema.safeParse({ on_error: 'escalate' }).success).toBe(false);
  });
});
