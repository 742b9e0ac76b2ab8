import { describe, expect, it } from 'vitest';
import { upstreamOf } from './upstream.js';

const work = {
  subtask_index: 1,
  message_id: 'r.0-0.0-0.0-0',
  task_type: 'write',
  specialist: 'writer',
  summary: 'A stunning draft!',
  confidence: 0.9,
  artifacts: [{ artifact_type: 'text', inline_content: 'Revenue grew 12% in 2025.' }],
};

describe('upstream work in task_data', () => {
  it('is read with its defaults filled in', () => {
    expect(upstreamOf({ upstream: [work] })).toEqual([
      { ...work, evidence_grade: null, artifacts: [{ artifact_type: 'text', inline_content: 'Revenue grew 12% in 2025.', content_ref: null, metadata: {} }] },
    ]);
  });

  it('is none when absent or not a list of upstream work, never an error', () => {
    expect(upstreamOf({})).toEqual([]);
    expect(upstreamOf({ upstream: 'the draft' })).toEqual([]);
    expect(upstreamOf({ upstream: [{ ...work, confidence: 2 }] })).toEqual([]);
  });
});
