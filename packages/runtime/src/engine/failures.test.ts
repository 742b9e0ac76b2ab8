import { delegationPayloadSchema } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { buildOutcome } from '../messages/messages.js';
import type { SettledChild } from '../policy/handler.js';
import { BudgetExceededError } from '../budget/usage-meter.js';
import { failureDraft, isPermanent, stoppedDraft } from './failures.js';

describe('budget failures and stops', () => {
  it('a refused model call is a permanent failure with error_type budget_exceeded, never retried', () => {
    const error = new BudgetExceededError('root-1', 'max_llm_calls');
    expect(isPermanent(error)).toBe(true);
    expect(failureDraft(error, 1)).toMatchObject({ status: 'failed', error_type: 'budget_exceeded', recoverable: false });
  });

  it('work stopped over its budget answers cancelled with the error_type its cancellation named', () => {
    expect(stoppedDraft({ status: 'cancelled', reason: 'budget exceeded: max_llm_calls 2 reached (2 used)', errorType: 'budget_exceeded' })).toMatchObject({
      status: 'cancelled',
      error_type: 'budget_exceeded',
      recoverable: false,
    });
    expect(stoppedDraft({ status: 'cancelled', reason: 'by hand' }).error_type).toBe('cancelled');
  });
});

describe('stoppedDraft', () => {
  const child = (index: number, status: 'success' | 'cancelled' | 'partial' | 'failed'): SettledChild => {
    const id = `r1.0-0.0-${index}`;
    const payload = {
      status,
      summary: status,
      confidence: 0.5,
      artifacts: [{ artifact_type: 'text', inline_content: `from ${status}` }],
      ...(status === 'success' ? {} : { error_type: status, error_detail: status, recoverable: false }),
    };
    const request = delegationPayloadSchema.parse({ task_type: 't', objective: 'o', task_data: {} });
    return { id, index, request, outcome: buildOutcome('ROUTING_DISPATCHER', id, payload, 10, Date.now()) };
  };

  it('brings up the artifacts of every child that did not fail: a stopped child’s partial results rise another level', () => {
    const draft = stoppedDraft({ status: 'cancelled', reason: 'by hand' }, [child(0, 'success'), child(1, 'cancelled'), child(2, 'partial'), child(3, 'failed')], 5);
    expect(draft.artifacts?.map((artifact) => artifact.inline_content)).toEqual(['from success', 'from cancelled', 'from partial']);
    expect(draft.summary).toBe('cancelled: by hand; 1 of 5 delegated subtasks had succeeded');
  });

  it('out of time under on_timeout partial_result, answers the partial result when a child succeeded, else timeout', () => {
    const stop = { status: 'timeout', reason: 'no answer within timeout_ms 1000' } as const;
    const children = [child(0, 'success'), child(1, 'cancelled'), child(2, 'failed')];
    expect(stoppedDraft(stop, children, 4, 'partial_result')).toMatchObject({
      status: 'partial',
      summary: 'partial result, out of time: no answer within timeout_ms 1000; 1 of 4 delegated subtasks had succeeded',
      confidence: 0.125,
      error_type: 'timeout',
      recoverable: false,
    });
    expect(stoppedDraft(stop, [child(1, 'cancelled')], 4, 'partial_result')).toMatchObject({ status: 'timeout', recoverable: true });
    expect(stoppedDraft(stop, children, 4, 'escalate')).toMatchObject({ status: 'timeout', recoverable: true });
    // A cancellation is no timeout, whatever the policy.
    expect(stoppedDraft({ status: 'cancelled', reason: 'by hand' }, children, 4, 'partial_result').status).toBe('cancelled');
  });
});
