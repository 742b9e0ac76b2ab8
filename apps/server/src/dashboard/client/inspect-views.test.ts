import { describe, expect, it } from 'vitest';
import type { Artifact, RunTimeline } from './api-types.js';
import { artifactShape } from './artifact-kind.js';
import { routingSummary } from './routing-view.js';
import { timelineLayout } from './timeline-layout.js';

const artifact = (artifact_type: string, inline_content: string | null, metadata: Record<string, unknown> = {}): Artifact => ({
  artifact_type,
  inline_content,
  content_ref: inline_content === null ? 'beads:x' : null,
  metadata,
});

describe('how the node panel shows an artifact', () => {
  it('shows code as code, JSON folded, test cases as a table, content in Beads by its reference, anything else as text', () => {
    expect(artifactShape(artifact('code', 'def f(): pass', { language: 'python' }))).toEqual({ kind: 'code', text: 'def f(): pass', language: 'python' });
    expect(artifactShape(artifact('analysis', '{"a":1,"b":[2]}'))).toMatchObject({ kind: 'json', summary: 'JSON, 2 fields', text: '{\n  "a": 1,\n  "b": [\n    2\n  ]\n}' });
    expect(artifactShape(artifact('test_result', '{"tests":[{"name":"adds","passed":true},{"name":"subtracts","passed":false,"error":"1 != 2"}]}'))).toEqual({
      kind: 'tests',
      columns: ['name', 'passed', 'error'],
      rows: [
        ['adds', 'true', ''],
        ['subtracts', 'false', '1 != 2'],
      ],
    });
    expect(artifactShape(artifact('test_result', '3 passed'))).toEqual({ kind: 'text', text: '3 passed' });
    expect(artifactShape(artifact('test_result', '[1,2]'))).toMatchObject({ kind: 'json' });
    expect(artifactShape(artifact('analysis', 'plain words'))).toEqual({ kind: 'text', text: 'plain words' });
    expect(artifactShape(artifact('analysis', '42'))).toEqual({ kind: 'text', text: '42' });
    expect(artifactShape(artifact('report', null))).toEqual({ kind: 'ref', ref: 'beads:x' });
  });
});

describe('the timeline’s layout', () => {
  const timeline: RunTimeline = {
    root_id: 'r',
    recorded: true,
    start: 1_000,
    end: null,
    nodes: [
      {
        id: 'r',
        parent: null,
        depth: 0,
        tier: 'PROGRESS_MONITOR',
        task_type: 'root',
        status: 'running',
        spans: [
          { kind: 'running', from: 1_000, to: 1_500 },
          { kind: 'children', from: 1_500, to: null },
        ],
      },
      { id: 'r.0-0', parent: 'r', depth: 1, tier: 'ABSTRACT_ARCHITECT', task_type: 'solve', status: 'success', spans: [{ kind: 'queued', from: 1_500, to: 2_000 }] },
    ],
  };

  it('puts every span on one axis, an open one up to now, with round ticks', () => {
    const layout = timelineLayout(timeline, 3_000);
    expect(layout.span).toBe(2_000);
    expect(layout.rows[0]!.bars).toEqual([
      { kind: 'running', left: 0, width: 25, ms: 500, open: false },
      { kind: 'children', left: 25, width: 75, ms: 1_500, open: true },
    ]);
    expect(layout.rows[1]!.bars[0]).toMatchObject({ left: 25, width: 25 });
    expect(layout.ticks.map((tick) => tick.ms)).toEqual([0, 500, 1_000, 1_500, 2_000]);
  });

  it('has no bars for a run with no times', () => {
    expect(timelineLayout({ ...timeline, start: null, nodes: [{ ...timeline.nodes[1]!, spans: [] }] }, 0)).toEqual({ rows: [expect.objectContaining({ id: 'r.0-0', bars: [] })], span: 0, ticks: [] });
  });
});

describe('how the node panel words a routing decision', () => {
  it('says what was chosen and why, what the fixed table or learned routing would have picked when that differs, and the expected gain', () => {
    expect(routingSummary({ mode: 'shadow', chosen: 'a', reason: 'fixed', fixed: 'a', learned: 'b', expected_gain: 0.2 })).toBe('shadow: a (fixed); learned would pick b; expected gain +0.200');
    expect(routingSummary({ mode: 'learned', chosen: 'b', reason: 'untried', fixed: 'a', learned: 'b', expected_gain: -0.05 })).toBe('learned: b (untried); fixed pick a; expected gain -0.050');
    expect(routingSummary({ mode: 'fixed', chosen: 'a', reason: 'fixed', fixed: 'a', learned: null, expected_gain: null })).toBe('fixed: a (fixed)');
    expect(routingSummary({ mode: 7 })).toBe('?: ?');
  });
});
