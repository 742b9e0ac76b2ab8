import { describe, expect, it } from 'vitest';
import { classifyLlmFailure, MAX_RETRY_AFTER_WAITS } from './llm-failure.js';

describe('classifyLlmFailure', () => {
  it.each([
    ['busy, told when, in time', 429, 1_000, 5_000, 0, { kind: 'wait', ms: 1_000 }],
    ['busy 503, no deadline known', 503, 2_000, null, 0, { kind: 'wait', ms: 2_000 }],
    ['busy past the deadline', 429, 6_000, 5_000, 0, { kind: 'throttled' }],
    ['busy, not told when', 429, undefined, 5_000, 0, { kind: 'throttled' }],
    ['busy after waiting enough', 429, 1_000, null, MAX_RETRY_AFTER_WAITS, { kind: 'throttled' }],
    ['model not served', 404, undefined, null, 0, { kind: 'unavailable' }],
    ['no answer at all', undefined, undefined, null, 0, { kind: 'retryable' }],
    ['server error', 500, undefined, null, 0, { kind: 'retryable' }],
    ['request timeout', 408, undefined, null, 0, { kind: 'retryable' }],
    ['bad request', 400, undefined, null, 0, { kind: 'permanent' }],
    ['bad key', 401, undefined, null, 0, { kind: 'permanent' }],
  ] as const)('%s', (_case, status, retryAfterMs, remainingMs, waits, expected) => {
    expect(classifyLlmFailure(status, retryAfterMs, remainingMs, waits)).toEqual(expected);
  });
});
