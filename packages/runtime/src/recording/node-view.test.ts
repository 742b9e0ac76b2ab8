import { describe, expect, it } from 'vitest';
import { buildDelegation, buildOutcome } from '../messages/messages.js';
import type { RunNode } from '../audit/run-tree-merge.js';
import { digestOf } from './bounded.js';
import { nodeRecords } from './node-record.js';
import type { RecordEntryInput } from './record-entry.js';
import { recordEntrySchema } from './record-entry.js';
import { nodeViewSchema } from './node-view-schema.js';
import { nodeView } from './node-view.js';
import { runTimeline } from './run-timeline.js';

const T0 = Date.parse('2026-11-28T10:00:00.000Z');
const LEAF = 'r.0-0.0-0.0-0';
const PARENT = 'r.0-0.0-0';
const delegation = buildDelegation(
  'ROUTING_DISPATCHER',
  LEAF,
  PARENT,
  { task_type: 'execute', objective: 'Write binary search', constraints: ['in Python'], context_refs: ['beads:spec'], specialist_hint: 'coder', timeout_ms: 30_000, task_data: { n: 3 } },
  T0,
);
const outcome = buildOutcome(
  'SPECIALIZED_FLEET',
  LEAF,
  {
    status: 'success',
    summary: 'Written.',
    confidence: 0.9,
    artifacts: [{ artifact_type: 'code', inline_content: 'def f(): pass' }],
    resources_used: { usage: { tokens_in: 10, tokens_out: 20, cost_usd: 0.001, llm_calls: 1 } },
  },
  800,
  T0 + 1_000,
);

function entries(metadata = false): RecordEntryInput[] {
  const value = (v: unknown): unknown => (metadata ? digestOf(v) : v);
  return [
    { kind: 'delegation', node: LEAF, tier: 'SPECIALIZED_FLEET', at: T0 + 100, attempt: 1, message: value(delegation), context: { 'beads:spec': value('the spec') }, edits: ['payload.objective="x"'] },
    { kind: 'pass', node: LEAF, tier: 'SPECIALIZED_FLEET', started_at: T0 + 100, ended_at: T0 + 400, worker: 'h:1', attempt: 1, end: 'retrying', error: 'busy', queued_at: T0 },
    { kind: 'pass', node: LEAF, tier: 'SPECIALIZED_FLEET', started_at: T0 + 600, ended_at: T0 + 1_000, worker: 'h:2', attempt: 2, end: 'answered' },
    {
      kind: 'call',
      node: LEAF,
      tier: 'SPECIALIZED_FLEET',
      purpose: 'specialist',
      endpoint: 'http://127.0.0.1:9/v1',
      model: 'm',
      request: value({
        messages: [
          { role: 'system', content: 'You code.' },
          { role: 'user', content: [{ type: 'text', text: 'Write it' }] },
        ],
        params: { temperature: 0 },
      }),
      request_hash: 'abc',
      answer: value({ content: 'def f(): pass', model: 'm', finish_reason: 'stop' }),
      error: null,
      usage: { tokens_in: 10, tokens_out: 20, cost_usd: 0.001, llm_calls: 1 },
      started_at: T0 + 650,
      latency_ms: 300,
      tries: 2,
      waits_ms: [100],
    },
    { kind: 'outcome', node: LEAF, tier: 'SPECIALIZED_FLEET', at: T0 + 1_000, message: value(outcome) },
  ];
}

const records = (metadata = false) => nodeRecords(entries(metadata).map((entry) => recordEntrySchema.parse(entry)));

const leafNode: RunNode = {
  id: LEAF,
  tier: 'SPECIALIZED_FLEET',
  task_type: 'execute',
  specialist: 'coder',
  status: 'success',
  source: 'outcome',
  queue_state: 'completed',
  confidence: 0.9,
  usage: null,
  progress: null,
  attempts: 2,
  started_at: new Date(T0 + 100).toISOString(),
  finished_at: new Date(T0 + 1_000).toISOString(),
  children: [],
};

describe('nodeView', () => {
  it('shows a recorded node: its input with its context values and edits, its outcome, passes, waits and calls', () => {
    const view = nodeViewSchema.parse(nodeView({ rootId: 'r', nodeId: LEAF, tree: leafNode, job: null, record: records().get(LEAF)!, skipped: 0 }));
    expect(view).toMatchObject({ id: LEAF, root_id: 'r', tier: 'SPECIALIZED_FLEET', status: 'success', recording: 'full', attempts: 2 });
    expect(view.input).toMatchObject({
      from: 'recording',
      objective: 'Write binary search',
      constraints: ['in Python'],
      task_data: { n: 3 },
      context: [{ ref: 'beads:spec', value: 'the spec' }],
      timeout_ms: 30_000,
      specialist_hint: 'coder',
      edits: ['payload.objective="x"'],
    });
    expect(view.outcome).toMatchObject({ from: 'recording', status: 'success', confidence: 0.9, artifacts: [{ artifact_type: 'code', inline_content: 'def f(): pass' }], usage: { llm_calls: 1 } });
    expect(view.passes.map((pass) => [pass.attempt, pass.end, pass.duration_ms, pass.error])).toEqual([
      [1, 'retrying', 300, 'busy'],
      [2, 'answered', 400, null],
    ]);
    expect(view.waits).toEqual([
      { kind: 'queued', from: T0, to: T0 + 100 },
      { kind: 'retry', from: T0 + 400, to: T0 + 600 },
    ]);
    expect(view.calls[0]).toMatchObject({
      messages: [
        { role: 'system', content: 'You code.' },
        { role: 'user', content: 'Write it' },
      ],
      params: { temperature: 0 },
      answer: 'def f(): pass',
      finish_reason: 'stop',
      tries: 2,
      waits_ms: [100],
      request_digest: null,
    });
  });

  it('under metadata shows sizes and hashes where the values were', () => {
    const view = nodeView({ rootId: 'r', nodeId: LEAF, tree: leafNode, job: null, record: records(true).get(LEAF)!, skipped: 2 });
    expect(view.recording).toBe('metadata');
    expect(view.skipped).toBe(2);
    expect(view.input).toMatchObject({ objective: null, digest: { bytes: expect.any(Number) as number } });
    expect(view.outcome).toMatchObject({ status: null, digest: { sha256: expect.any(String) as string } });
    expect(view.calls[0]).toMatchObject({ messages: null, answer: null, request_digest: { bytes: expect.any(Number) as number } });
  });

  it('without a recording shows what the tree and the job know', () => {
    const view = nodeView({ rootId: 'r', nodeId: LEAF, tree: leafNode, job: { data: delegation, returnvalue: outcome }, record: null, skipped: 0 });
    expect(view).toMatchObject({ recording: 'none', status: 'success', passes: [], calls: [] });
    expect(view.input).toMatchObject({ from: 'job', objective: 'Write binary search', context: [{ ref: 'beads:spec', value: null }] });
    expect(view.outcome).toMatchObject({ from: 'job', summary: 'Written.' });
    const root = nodeView({ rootId: 'r', nodeId: 'r', tree: null, job: { data: { kind: 'root', objective: { objective: 'Do it' } }, returnvalue: null }, record: null, skipped: 0 });
    expect(root.input?.objective).toBe('Do it');
    expect(root.outcome).toBeNull();
  });
});

describe('nodeView of handoff metadata', () => {
  it('shows the thread, the handoff constraints and what the outcome says of its work, and nothing where none is carried', () => {
    const withThread = buildDelegation(
      'ROUTING_DISPATCHER',
      LEAF,
      PARENT,
      { task_type: 'execute', objective: 'x', thread_id: 't-43', handoff: { cascade_check: false, max_context_tokens: 4000 } },
      T0,
    );
    const described = buildOutcome(
      'SPECIALIZED_FLEET',
      LEAF,
      { status: 'success', summary: 's', confidence: 0.9, sources_count: 7, data_freshness: '2026-02-28', gaps: ['no prices'], format: 'markdown' },
      10,
      T0 + 10,
    );
    const view = nodeViewSchema.parse(nodeView({ rootId: 'r', nodeId: LEAF, tree: leafNode, job: { data: withThread, returnvalue: described }, record: null, skipped: 0 }));
    expect(view.input).toMatchObject({ thread_id: 't-43', handoff: { cascade_check: false, max_context_tokens: 4000 } });
    expect(view.outcome?.metadata).toEqual({ format: 'markdown', sources_count: 7, data_freshness: '2026-02-28', gaps: ['no prices'] });
    const plain = nodeView({ rootId: 'r', nodeId: LEAF, tree: leafNode, job: { data: delegation, returnvalue: outcome }, record: null, skipped: 0 });
    expect(plain.input).not.toHaveProperty('thread_id');
    expect(plain.input).not.toHaveProperty('handoff');
    expect(plain.outcome).not.toHaveProperty('metadata');
  });
});

describe('runTimeline', () => {
  it("puts each node's passes and waits on one axis, depth first; a node not recorded gets its tree's times", () => {
    const parent: RunNode = { ...leafNode, id: PARENT, tier: 'ROUTING_DISPATCHER', started_at: new Date(T0 - 500).toISOString(), finished_at: null, children: [leafNode] };
    const timeline = runTimeline(parent, { nodes: records(), skipped: 0 });
    expect(timeline.recorded).toBe(true);
    expect(timeline.start).toBe(T0 - 500);
    expect(timeline.end).toBeNull();
    expect(timeline.nodes.map((node) => [node.id, node.parent, node.depth])).toEqual([
      [PARENT, null, 0],
      [LEAF, PARENT, 1],
    ]);
    expect(timeline.nodes[0]!.spans).toEqual([{ kind: 'running', from: T0 - 500, to: null }]);
    expect(timeline.nodes[1]!.spans.map((span) => span.kind)).toEqual(['queued', 'running', 'retry', 'running']);
  });
});
