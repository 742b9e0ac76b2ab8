import { describe, expect, it } from 'vitest';
import { objectiveFileSchema } from './objective.js';

const plan = { strategy: 'all_success', subtasks: [{ objective: 'a', handoff: { cascade_check: true } }] };

describe('an objective file with handoff metadata', () => {
  it('takes a thread and handoff constraints for the run, and for a subtask', () => {
    const parsed = objectiveFileSchema.parse({ objective: 'x', thread_id: 't-1', handoff: { cascade_check: false, max_context_tokens: 4000 }, task_data: { plan } });
    expect(parsed).toMatchObject({ thread_id: 't-1', handoff: { cascade_check: false, max_context_tokens: 4000 }, task_data: { plan } });
  });

  it('refuses a misspelt flag or a limit that is not a positive whole number', () => {
    expect(objectiveFileSchema.safeParse({ objective: 'x', handoff: { cascade: false } }).success).toBe(false);
    expect(objectiveFileSchema.safeParse({ objective: 'x', handoff: { max_context_tokens: 0 } }).success).toBe(false);
    expect(objectiveFileSchema.safeParse({ objective: 'x', thread_id: '' }).success).toBe(false);
  });
});
