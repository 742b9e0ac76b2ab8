import type { Artifact } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { childOutcomesOf, workArtifactsOf, workArtifactsOfEntries, type ChildOutcomeEntry } from './child-outcomes.js';

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

describe('workArtifactsOfEntries', () => {
  const work = (name: string): Artifact => ({ ...code, content_ref: `beads:execution/outputs/${name}` });
  const counted = (id: string, count: number | undefined): ChildOutcomeEntry => ({ ...entry, id, ...(count === undefined ? {} : { artifact_count: count }) }) as ChildOutcomeEntry;
  const artifacts = [summary({}), work('a1'), work('a2'), work('c1')];
  const keepA = (child: ChildOutcomeEntry): boolean => child.id !== 'a';

  it.each<[string, ChildOutcomeEntry[] | null, Artifact[]]>([
    ['the chosen entries’ own work, by the counts', [counted('a', 2), counted('b', 0), counted('c', 1)], [work('c1')]],
    ['every work artifact without counts', [counted('a', undefined), counted('b', 0), counted('c', 1)], [work('a1'), work('a2'), work('c1')]],
    ['every work artifact when the counts do not add up', [counted('a', 1), counted('c', 1)], [work('a1'), work('a2'), work('c1')]],
    ['every work artifact without entries', null, [work('a1'), work('a2'), work('c1')]],
  ])('%s', (_name, entries, expected) => {
    expect(workArtifactsOfEntries(artifacts, entries, keepA)).toEqual(expected);
  });
});
