import { formatValidationError, validateWith } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { objectiveFileSchema } from './objective.js';

const objective = (expected_output_schema: unknown) => ({
  objective: 'o',
  task_data: { plan: { strategy: 'all_success', subtasks: [{ objective: 's', expected_output_schema }] } },
});

describe('an objective file’s expected_output_schema', () => {
  it('is taken when it compiles', () => {
    expect(validateWith(objectiveFileSchema, objective({ type: 'object', required: ['artifacts'] })).ok).toBe(true);
  });

  it('is refused, with its path, when it does not, or is not an object', () => {
    const bad = validateWith(objectiveFileSchema, objective({ type: 'no-such-type' }));
    expect(bad.ok).toBe(false);
    expect(bad.ok ? [] : bad.errors.map(formatValidationError)).toEqual([expect.stringMatching(/^\$\.task_data\.plan\.subtasks\[0\]\.expected_output_schema: not a usable JSON Schema: /)]);
    expect(validateWith(objectiveFileSchema, objective('string')).ok).toBe(false);
  });
});
