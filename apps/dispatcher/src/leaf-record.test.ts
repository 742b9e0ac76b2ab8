import { outcomePayloadSchema, type OutcomePayloadInput } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { leafReport, type LeafAttempt } from './leaf-record.js';
import { statsAfter } from './test-history.js';

const request: LeafAttempt['request'] = { task_type: 'write', task_data: { task_type: 'write', subtask_index: 1 }, specialist_hint: 'coder' };
const attempt = (outcome: Partial<OutcomePayloadInput>): LeafAttempt => ({
  request,
  outcome: { payload: outcomePayloadSchema.parse({ status: 'success', summary: 'ok', confidence: 0.9, execution_time_ms: 120, ...outcome }) },
});
const decision = { mode: 'shadow' as const, task_type: 'write', chosen: 'coder', reason: 'best_mean' as const, fixed: 'coder', learned: 'writer', expected_gain: 0.1, scores: [] };

describe('leafReport', () => {
  it('records the attempt: task type, specialist, model, status, reported confidence, time, usage and routing', () => {
    const report = leafReport(
      attempt({
        confidence: 0.6,
        reported_confidence: 0.95,
        resources_used: { specialist: 'coder', model: 'small', usage: { tokens_in: 10, tokens_out: 20, cost_usd: 0.002, llm_calls: 1 } },
      }),
      decision,
      () => null,
    );
    expect(report).toEqual({
      surprise: null,
      record: {
        task_type: 'write',
        specialist: 'coder',
        model: 'small',
        status: 'success',
        confidence: 0.95,
        latency_ms: 120,
        tokens_in: 10,
        tokens_out: 20,
        cost_usd: 0.002,
        surprise: false,
        routing: { mode: 'shadow', reason: 'best_mean', fixed: 'coder', learned: 'writer', expected_gain: 0.1, chosen: 'coder' },
      },
    });
  });

  it('reads what is missing or out of shape as nothing, and names the specialist the delegation named when the Fleet does not', () => {
    const report = leafReport(attempt({ status: 'failed', confidence: 0, error_type: 'specialist_unavailable', resources_used: { specialist_requested: 'coder', usage: 'lots' } }), null, () => null);
    expect(report?.record).toMatchObject({ specialist: 'coder', model: null, status: 'failed', confidence: 0, tokens_in: 0, tokens_out: 0, cost_usd: 0, routing: null });
  });

  it('judges surprise against the specialist’s history on the task type', () => {
    const report = leafReport(attempt({ status: 'failed', confidence: 0.1, error_type: 'crash' }), null, (taskType, specialist) =>
      taskType === 'write' && specialist === 'coder' ? statsAfter(40, 0) : null,
    );
    expect(report?.surprise).toBe('failed where coder succeeds 100 % of the time');
    expect(report?.record.surprise).toBe(true);
  });

  it('records nothing of a throttled attempt, nor of one naming no specialist', () => {
    expect(leafReport(attempt({ status: 'throttled', confidence: 0, error_type: 'throttled' }), null, () => null)).toBeNull();
    expect(leafReport({ ...attempt({}), request: { ...request, specialist_hint: null } }, null, () => null)).toBeNull();
  });
});
