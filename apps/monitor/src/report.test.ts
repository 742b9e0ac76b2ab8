import { outcomePayloadSchema, type OutcomePayload } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { passUp } from '@tierflow/runtime/policy';
import { evaluatedReport } from './report.js';

const outcome: OutcomePayload = outcomePayloadSchema.parse({
  status: 'success',
  summary: '3/3 subtasks succeeded (all_success)',
  confidence: 0.9,
  execution_time_ms: 2,
  resources_used: { parallel_tasks: 3, revisions: 0 },
  artifacts: [{ artifact_type: 'code', inline_content: 'x' }],
});

describe('evaluatedReport', () => {
  it.each<[string, OutcomePayload, { flag: boolean; reason: string | null }, object]>([
    ['no surprise', outcome, { flag: false, reason: null }, { surprise_flag: false, surprise_reason: null }],
    ['the Monitor’s surprise', outcome, { flag: true, reason: 'confidence low' }, { surprise_flag: true, surprise_reason: 'confidence low' }],
    [
      'a lower tier’s surprise is kept',
      { ...outcome, surprise_flag: true, surprise_reason: 'slow specialist' },
      { flag: false, reason: null },
      { surprise_flag: true, surprise_reason: 'slow specialist' },
    ],
    [
      'both',
      { ...outcome, surprise_flag: true, surprise_reason: 'slow specialist' },
      { flag: true, reason: 'confidence low' },
      { surprise_flag: true, surprise_reason: 'confidence low; slow specialist' },
    ],
  ])('%s', (_name, subject, surprise, expected) => {
    const report = evaluatedReport(subject, { surprise, resets: 1, durationMs: 1234.4 });
    expect(report).toEqual({ ...passUp(subject), execution_time_ms: 1234, resources_used: { parallel_tasks: 3, revisions: 0, resets: 1 }, ...expected });
    expect(outcomePayloadSchema.safeParse(report).success).toBe(true);
  });
});
