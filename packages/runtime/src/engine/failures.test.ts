import { describe, expect, it } from 'vitest';
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
