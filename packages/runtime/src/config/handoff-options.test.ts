import { describe, expect, it } from 'vitest';
import { DEFAULT_AUDIT_TTL_MS } from './runtime-settings.js';
import { resolveRuntimeOptions, runtimeOptionsFromEnv } from './options.js';

describe('audit and cascade options', () => {
  it('default to a 30-day audit trail and the protocol’s cascade bounds', () => {
    expect(resolveRuntimeOptions()).toMatchObject({ auditTtlMs: DEFAULT_AUDIT_TTL_MS, cascade: { proceed: 0.8, flag: 0.5, review: 0.3 } });
    expect(DEFAULT_AUDIT_TTL_MS).toBe(30 * 24 * 3600_000);
  });

  it('come from the environment', () => {
    const options = runtimeOptionsFromEnv({ TIERFLOW_AUDIT_TTL_MS: '60000', TIERFLOW_CASCADE_PROCEED: '0.9', TIERFLOW_CASCADE_REVIEW: '0.2' });
    expect(options).toMatchObject({ auditTtlMs: 60_000, cascade: { proceed: 0.9, flag: 0.5, review: 0.2 } });
    expect(runtimeOptionsFromEnv({ TIERFLOW_CASCADE_CHECK: 'off' }).cascade).toBeNull();
  });

  it('refuse what cannot be meant', () => {
    expect(() => runtimeOptionsFromEnv({ TIERFLOW_AUDIT_TTL_MS: '0' })).toThrow(/TIERFLOW_AUDIT_TTL_MS="0": must be a whole number of milliseconds, at least 1/);
    expect(() => resolveRuntimeOptions({ auditTtlMs: 1.5 })).toThrow(/auditTtlMs: must be a whole number/);
    expect(() => runtimeOptionsFromEnv({ TIERFLOW_CASCADE_FLAG: 'high' })).toThrow(/TIERFLOW_CASCADE_FLAG="high": must be a number from 0 to 1/);
    expect(() => runtimeOptionsFromEnv({ TIERFLOW_CASCADE_FLAG: '0.9' })).toThrow(/TIERFLOW_CASCADE_FLAG="0.9": must be at most TIERFLOW_CASCADE_PROCEED \(0.8, the default\)/);
    expect(() => resolveRuntimeOptions({ cascade: { flag: 0.9 } })).toThrow(/proceed \(0.8, the default\) must be at least flag \(0.9\)/);
  });
});
