import { buildRootOutcome } from '@tierflow/runtime/admin';
import { describe, expect, it } from 'vitest';
import { renderOutcome } from './render-outcome.js';

const NOW = Date.parse('2026-11-28T10:00:00.000Z');

describe('the outcome at the end of enqueue --wait', () => {
  it('is a few lines: status, confidence and time, the summary, the usage, and where the JSON is', () => {
    const outcome = buildRootOutcome(
      'r1',
      'r1.0-0',
      { status: 'success', summary: 'Binary search written,\nwith its tests.', confidence: 0.92, resources_used: { usage: { tokens_in: 2_000, tokens_out: 410, cost_usd: 0.0042, llm_calls: 3 } } },
      4_120,
      NOW,
    );
    expect(renderOutcome('r1', outcome)).toBe(
      [
        'outcome  success  confidence 0.92  took 4.1 s',
        'summary  Binary search written, with its tests.',
        'usage    3 calls  2,410 tokens  $0.0042',
        'tierflow result r1 prints the outcome message as JSON',
        '',
      ].join('\n'),
    );
  });

  it('names the error of a run that failed, and leaves out usage when there was none', () => {
    const outcome = buildRootOutcome(
      'r2',
      'r2.0-0',
      { status: 'failed', summary: 'No subtask succeeded.', confidence: 0, error_type: 'model_unreachable', error_detail: 'http://localhost:11434 refused the connection', recoverable: true },
      900,
      NOW,
    );
    expect(renderOutcome('r2', outcome).split('\n').slice(0, 3)).toEqual([
      'outcome  failed  confidence 0.00  took 0.9 s',
      'summary  No subtask succeeded.',
      'error    model_unreachable: http://localhost:11434 refused the connection',
    ]);
  });
});
