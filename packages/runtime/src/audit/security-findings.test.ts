import { describe, expect, it } from 'vitest';
import { securityFindingOf } from './security-findings.js';

describe('securityFindingOf', () => {
  it('finds an agent hash mismatch, high, with what the outcome said', () => {
    expect(securityFindingOf({ error_type: 'agent_hash_mismatch', error_detail: 'sim: prompt hash abc, pinned def', summary: 's' })).toEqual({
      kind: 'agent_hash_mismatch',
      severity: 'high',
      message: 'sim: prompt hash abc, pinned def',
    });
  });

  it('finds nothing in a success or an ordinary failure, and keeps a long detail short', () => {
    expect(securityFindingOf({ error_type: null, error_detail: null, summary: 'ok' })).toBeNull();
    expect(securityFindingOf({ error_type: 'execution_error', error_detail: 'exit 1', summary: 's' })).toBeNull();
    expect(securityFindingOf({ error_type: 'agent_hash_mismatch', error_detail: 'x'.repeat(900), summary: 's' })?.message).toHaveLength(501);
  });
});
