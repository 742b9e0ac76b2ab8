import type { Artifact } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { childOutcomesOf, workArtifactsOf } from './child-outcomes.js';

const entry = { id: 'm1', status: 'success', specialist: 'sim', confidence: 0.9, subtask_index: 1 };
const summary = (metadata: Record<string, unknown>): Artifact => ({ artifact_type: 'aggregation_summary', content_ref: null, inline_content: '{}', metadata });
const code: Artifact = { artifact_type: 'code', content_ref: 'beads:execution/outputs/m1', inline_content: null, metadata: {} };

describe('childOutcomesOf', () => {
  it.each<[string, Artifact[], unknown]>([
    ['the summary first', [summary({ child_outcomes: [entry] }), code], [entry]],
    ['no artifacts', [], null],
    ['the summary not first', [code, summary({ child_outcomes: [entry] })], null],
    ['no child_outcomes', [summary({})], null],
    ['a malformed entry', [summary({ child_outcomes: [{ ...entry, subtask_index: 0 }] })], null],
  ])('%s', (_name, artifacts, expected) => {
    expect(childOutcomesOf(artifacts)).toEqual(expected);
  });
});

describe('workArtifactsOf', () => {
  it('drops the summaries', () => {
    expect(workArtifactsOf([summary({}), code])).toEqual([code]);
  });
});
