import type { NodeView } from '@tierflow/runtime/admin';
import { describe, expect, it } from 'vitest';
import { clean, excerpt, renderNode } from './render-node.js';

const T0 = Date.parse('2026-11-28T10:00:00.000Z');
const LONG = `Write a function that ${'does a great many things '.repeat(20)}and returns.`;

const view: NodeView = {
  id: 'r.0-0.0-0.0-0',
  root_id: 'r',
  tier: 'SPECIALIZED_FLEET',
  status: 'success',
  source: 'outcome',
  queue_state: 'completed',
  task_type: 'execute',
  specialist: 'coder',
  attempts: 2,
  started_at: new Date(T0).toISOString(),
  finished_at: new Date(T0 + 1_000).toISOString(),
  children: [],
  recording: 'full',
  skipped: 0,
  reused_from: null,
  input: {
    from: 'recording',
    digest: null,
    objective: 'Write binary search',
    constraints: ['in Python', 'with tests'],
    task_data: { n: 3 },
    context: [{ ref: 'beads:spec', value: 'the spec' }],
    error_policy: { retries: 1 },
    timeout_ms: 30_000,
    deadline_hint: null,
    specialist_hint: 'coder',
    routing: null,
    priority: 2,
    edits: ['payload.objective="x"'],
    attempt: 1,
    at: T0,
  },
  outcome: {
    from: 'recording',
    digest: null,
    status: 'failed',
    summary: 'Could not.',
    confidence: 0.2,
    error_type: 'model_unreachable',
    error_detail: 'refused',
    artifacts: [{ artifact_type: 'code', content_ref: null, inline_content: 'def f():\n  pass', metadata: {} }],
    usage: { tokens_in: 10, tokens_out: 20, cost_usd: 0.001, llm_calls: 1 },
    execution_time_ms: 800,
    at: T0 + 1_000,
  },
  passes: [
    { started_at: T0 + 100, ended_at: T0 + 400, duration_ms: 300, worker: 'h:1', attempt: 1, end: 'retrying', error: 'busy' },
    { started_at: T0 + 600, ended_at: T0 + 1_000, duration_ms: 400, worker: 'h:2', attempt: 2, end: 'answered', error: null },
  ],
  waits: [
    { kind: 'queued', from: T0, to: T0 + 100 },
    { kind: 'retry', from: T0 + 400, to: T0 + 600 },
  ],
  calls: [
    {
      purpose: 'specialist',
      endpoint: 'http://127.0.0.1:9/v1',
      model: 'small',
      started_at: T0 + 650,
      latency_ms: 300,
      tries: 2,
      waits_ms: [100],
      replayed: false,
      estimated: false,
      error: null,
      usage: { tokens_in: 10, tokens_out: 20, cost_usd: 0.001, llm_calls: 1 },
      request_hash: 'abc',
      messages: [
        { role: 'system', content: 'You code.' },
        { role: 'user', content: LONG },
      ],
      params: { temperature: 0 },
      request_digest: null,
      answer: 'def f():\n  pass\u001b[2J',
      finish_reason: 'stop',
      answer_digest: null,
    },
  ],
  tools: [],
};

const toolCall = {
  name: 'mcp:files/read_file',
  call_id: 'call_1',
  caller: 'fleet:coder',
  arguments: { path: 'notes.txt' },
  arguments_digest: null,
  result: `the notes: ${'x'.repeat(300)}`,
  result_digest: null,
  result_bytes: 311,
  end: 'ok' as const,
  error: null,
  started_at: T0 + 700,
  latency_ms: 12,
  replayed: false,
};

describe('renderNode', () => {
  it('shows who ran the node, its input, outcome, passes, waits and calls, prompts cut short', () => {
    const text = renderNode(view);
    expect(text).toContain('node           r.0-0.0-0.0-0\ntier           SPECIALIZED_FLEET  status success  task execute  specialist coder');
    expect(text).toContain('  objective    Write binary search');
    expect(text).toContain('  constraints  - in Python\n               - with tests');
    expect(text).toContain('  context      beads:spec = the spec');
    expect(text).toContain('  deadline     timeout 30000 ms');
    expect(text).toContain('  edits        payload.objective="x"');
    expect(text).toContain('  status       failed  confidence 0.20  took 0.80 s');
    expect(text).toContain('  error        model_unreachable: refused');
    expect(text).toContain('  artifact     code (15 bytes inline)\n                 def f():\n                   pass');
    expect(text).toContain('passes\n  ATTEMPT  STARTED                   TOOK    WORKER  ENDED     ERROR\n  1        2026-11-28T10:00:00.100Z  0.30 s  h:1     retrying  busy');
    expect(text).toContain('waits\n  WAITED    FROM                      TOOK\n  queued    2026-11-28T10:00:00.000Z  0.10 s\n  to retry');
    expect(text).toContain('  1. specialist  small at http://127.0.0.1:9/v1  10 in / 20 out  $0.001  300 ms  2 tries  waited 100 ms');
    expect(text).toContain('     [user]    Write a function that does a great many things');
    expect(text).not.toContain('and returns.');
    expect(text).toContain(`(${LONG.length} chars)`);
    // A recorded escape sequence cannot reach the terminal.
    expect(text).not.toContain('\u001b');
    expect(text).toContain('\\u001b[2J');
  });

  it('shows its tool calls: how each ended, its arguments and result cut short, or their digests', () => {
    const refused = { ...toolCall, name: 'rm', call_id: 'call_2', end: 'refused' as const, error: 'fleet:coder may not hand work to tool:rm', result: 'not run', result_bytes: 7 };
    const text = renderNode({ ...view, tools: [toolCall, refused] });
    expect(text).toContain('tool calls (2): arguments and results cut short; --calls shows them whole\n  1. mcp:files/read_file  ok  12 ms  311 bytes back  call_1\n');
    expect(text).toContain('     args      {"path":"notes.txt"}');
    expect(text).toContain('(311 chars)');
    expect(text).toContain('  2. rm  refused  12 ms  7 bytes back  call_2\n     error     fleet:coder may not hand work to tool:rm');
    const digest = { bytes: 20, sha256: 'f'.repeat(64) };
    const kept = renderNode({ ...view, tools: [{ ...toolCall, arguments: null, arguments_digest: digest, result: null, result_digest: digest }] });
    expect(kept).toContain('     args      kept by size and hash only: 20 bytes');
    expect(kept).toContain('     result    kept by size and hash only: 20 bytes');
    expect(renderNode({ ...view, tools: [toolCall] }, { calls: true })).toContain('x'.repeat(300));
  });

  it('with --calls shows prompts and answers whole', () => {
    const text = renderNode(view, { calls: true });
    expect(text).toContain(LONG);
    expect(text).toContain('     answer (stop)  def f():\n                      pass\\u001b[2J');
  });

  it('shows how the specialist was chosen, with the scores the Dispatcher saw', () => {
    const routing = {
      mode: 'learned',
      task_type: 'execute',
      chosen: 'coder',
      reason: 'sampled',
      fixed: 'writer',
      learned: 'coder',
      expected_gain: 0.125,
      scores: [
        { specialist: 'writer', samples: 12, success_mean: 0.5, sampled: 0.41, cost_usd: null, latency_ms: null, score: 0.41 },
        { specialist: 'coder\u001b[2J', samples: 30.25, success_mean: 0.875, sampled: 0.9, cost_usd: 0.002, latency_ms: 820, score: 0.9 },
      ],
    };
    const text = renderNode({ ...view, input: { ...view.input!, routing } });
    expect(text).toContain('  routing      learned: coder (sampled); fixed pick writer; expected gain +0.125\n');
    expect(text).toContain('               SPECIALIST      SAMPLES  SUCCESS  SAMPLED  COST $  LATENCY MS  SCORE\n');
    expect(text).toContain('               writer          12.0     0.500    0.410    -       -           0.410\n');
    expect(text).toContain('               coder\\u001b[2J  30.3     0.875    0.900    0.0020  820         0.900');
    expect(renderNode({ ...view, input: { ...view.input!, routing: { mode: 'fixed', chosen: 'writer', reason: 'fixed', fixed: 'writer', learned: null, scores: [] } } })).toContain(
      '  routing      fixed: writer (fixed)\n',
    );
  });

  it('shows the thread, the handoff constraints and the handoff metadata when the node carries them', () => {
    const text = renderNode({
      ...view,
      input: { ...view.input!, thread_id: 'thread-43', handoff: { cascade_check: false, tone_isolation: true, max_context_tokens: 4000 } },
      outcome: { ...view.outcome!, metadata: { format: 'markdown', sources_count: 7, data_freshness: '2026-02-28', gaps: ['no prices', 'no churn'], assumptions: ['2025 market size'] } },
    });
    expect(text).toContain('  thread       thread-43');
    expect(text).toContain('  handoff      cascade check off, tone isolation on, at most 4000 context tokens');
    expect(text).toContain('  work         format markdown  7 sources  data as of 2026-02-28');
    expect(text).toContain('  gaps         - no prices\n               - no churn');
    expect(text).toContain('  assumptions  - 2025 market size');
    const plain = renderNode(view);
    expect(plain).not.toContain('thread');
    expect(plain).not.toContain('gaps');
  });

  it('says when recording was off, and shows what the tree and job know', () => {
    const text = renderNode({ ...view, recording: 'none', input: null, outcome: null, passes: [], waits: [], calls: [] });
    expect(text).toContain('recording      off: nothing was recorded of this node (TIERFLOW_RECORD=none, or a run older than recording)');
    expect(text).toContain('input\n  none known');
    expect(text).toContain('outcome\n  none yet (status success)');
    expect(text).not.toContain('passes');
  });

  it('says what metadata recording kept', () => {
    const digest = { bytes: 120, sha256: 'ab'.repeat(32) };
    const text = renderNode({ ...view, recording: 'metadata', input: { ...view.input!, digest, objective: null, constraints: [], task_data: null, context: [], edits: [] } });
    expect(text).toContain('recording      metadata: messages, prompts and answers kept by their size and hash only');
    expect(text).toContain('  digest       kept by size and hash only: 120 bytes, sha256 abababababababab…');
  });
});

describe('text helpers', () => {
  it('cut a text to one line, and escape control characters', () => {
    expect(excerpt('a\n b')).toBe('a b');
    expect(clean('a\tb\n\u0007')).toBe('a\tb\n\\u0007');
  });
});
