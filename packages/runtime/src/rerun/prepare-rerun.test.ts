import { describe, expect, it } from 'vitest';
import { buildOutcome } from '../messages/messages.js';
import { digestOf } from '../recording/bounded.js';
import { toolCallHash } from '../recording/run-recorder.js';
import type { RecordEntry } from '../recording/record-entry.js';
import { prepareRerun, type RerunSource } from './prepare-rerun.js';

const ROOT = 'run-1';
const ARCHITECT = `${ROOT}.0-0`;
const DISPATCHER = `${ARCHITECT}.0-0`;
const LEAVES = [0, 1, 2].map((index) => `${DISPATCHER}.0-${index}`);
const usage = { tokens_in: 12, tokens_out: 5, cost_usd: 0, llm_calls: 1 };

const outcome = (node: string, summary: string) => buildOutcome('SPECIALIZED_FLEET', node, { status: 'success', summary, confidence: 0.9 }, 10, 1_000);

function call(node: string, hash: string, answer: unknown): RecordEntry {
  return {
    kind: 'call',
    node,
    tier: 'fleet',
    purpose: 'specialist',
    endpoint: 'http://127.0.0.1:1/v1',
    model: 'llm-writer',
    request: { messages: [], params: {} },
    request_hash: hash,
    answer,
    error: null,
    usage,
    estimated: false,
    started_at: 1,
    latency_ms: 2,
    tries: 1,
    waits_ms: [],
    replayed: false,
  };
}

const answer = (content: string) => ({ content, model: 'llm-writer', finish_reason: 'stop' });

function source(overrides: Partial<RerunSource> = {}): RerunSource {
  return {
    rootId: ROOT,
    objective: { objective: 'write the pieces', constraints: ['be brief'] },
    entries: [
      call(LEAVES[0]!, 'h0', answer('one')),
      call(LEAVES[1]!, 'h1', answer('two')),
      call(LEAVES[2]!, 'h2', digestOf(answer('three'))),
      { kind: 'outcome', node: LEAVES[2]!, tier: 'fleet', at: 5, message: outcome(LEAVES[2]!, 'three') },
    ],
    // The jobs' return values: the third leaf's job is gone, its recorded outcome stands in.
    outcomes: new Map<string, unknown>([
      [ARCHITECT, buildOutcome('ABSTRACT_ARCHITECT', ARCHITECT, { status: 'success', summary: 'all', confidence: 0.9 }, 30, 1_000)],
      [DISPATCHER, buildOutcome('ROUTING_DISPATCHER', DISPATCHER, { status: 'success', summary: 'all', confidence: 0.9 }, 20, 1_000)],
      [LEAVES[0]!, outcome(LEAVES[0]!, 'one')],
      [LEAVES[1]!, outcome(LEAVES[1]!, 'two')],
    ]),
    ...overrides,
  };
}

describe('prepareRerun', () => {
  it('a whole rerun: the objective with its edits, no reuse, answers only when it replays', () => {
    const plain = prepareRerun(source(), { set: ['objective=write them again', 'constraints.0="plain words"'] });
    expect(plain.objective).toEqual({ objective: 'write them again', constraints: ['plain words'] });
    expect(plain.spec).toEqual({ of: ROOT, from: null, replay: 'off', edits: ['objective=write them again', 'constraints.0="plain words"'] });
    expect(plain.replay.size).toBe(0);
    expect(plain.reuse.size).toBe(0);

    const replayed = prepareRerun(source(), { replay: 'strict' });
    expect(replayed.objective).toEqual(source().objective);
    expect([...replayed.replay]).toEqual([
      ['h0', JSON.stringify(answer('one'))],
      ['h1', JSON.stringify(answer('two'))],
    ]);
    // The call recorded as a digest cannot be replayed, and the caller is told.
    expect(replayed.notes).toEqual([expect.stringContaining('1 recorded model call has no answer in full')]);
  });

  it('keeps what tool calls gave, by tool and arguments, and the tool calls a model asked for with its answer', () => {
    const tool = (args: unknown, result: unknown, end: 'ok' | 'error' | 'refused', bytes = typeof result === 'string' ? Buffer.byteLength(result) : 0): RecordEntry => ({
      kind: 'tool',
      node: LEAVES[0]!,
      tier: 'fleet',
      name: 'look_up',
      call_id: 'call_1',
      caller: 'fleet:writer',
      arguments: args,
      result,
      result_bytes: bytes,
      end,
      error: null,
      started_at: 1,
      latency_ms: 2,
      replayed: false,
    });
    const asking = { ...answer(''), tool_calls: [{ id: 'call_1', name: 'look_up', arguments: '{"word":"a"}' }] };
    const entries = [
      call(LEAVES[0]!, 'h', asking),
      tool({ word: 'a' }, 'a: found', 'ok'),
      tool({ word: 'b' }, 'no such word', 'error'),
      tool({ word: 'c' }, 'not run (refused): outside', 'refused'),
      tool({ word: 'd' }, 'cut… [cut: 99999 bytes in all]', 'ok', 99_999),
      tool(digestOf({ word: 'e' }), 'e', 'ok'),
    ];
    const replay = prepareRerun(source({ entries }), { replay: 'strict' }).replay;
    expect(JSON.parse(replay.get('h')!)).toEqual(asking);
    expect(JSON.parse(replay.get(toolCallHash('look_up', { word: 'a' }))!)).toEqual({ content: 'a: found', isError: false });
    expect(JSON.parse(replay.get(toolCallHash('look_up', { word: 'b' }))!)).toEqual({ content: 'no such word', isError: true });
    // Refused calls never ran, a result cut to fit is not what the model saw, a digest cannot be matched.
    expect(replay.size).toBe(3);
  });

  it('takes the first answer of a request made twice', () => {
    const entries = [call(LEAVES[0]!, 'h', answer('first')), call(LEAVES[1]!, 'h', answer('second')), call(LEAVES[2]!, 'x', null)];
    expect([...prepareRerun(source({ entries }), { replay: 'loose' }).replay]).toEqual([['h', JSON.stringify(answer('first'))]]);
  });

  it('a fork: the objective as it was, edits left to the node, answers always, and every other leaf’s outcome by path', () => {
    const fork = prepareRerun(source(), { from: LEAVES[1]!, set: ['objective=piece two, again'] });
    expect(fork.objective).toEqual(source().objective);
    expect(fork.spec).toEqual({ of: ROOT, from: LEAVES[1], replay: 'off', edits: ['objective=piece two, again'] });
    // Its ancestors replay loosely, so the answers go with it even without --replay.
    expect(fork.replay.size).toBe(2);
    // The job's return value where it is retained, else the recorded outcome; ancestors and the node itself run again.
    expect(new Map([...fork.reuse].map(([path, json]) => [path, (JSON.parse(json) as { payload: { summary: string } }).payload.summary]))).toEqual(
      new Map([
        ['.0-0.0-0.0-0', 'one'],
        ['.0-0.0-0.0-2', 'three'],
      ]),
    );
  });

  it('a fork from a parent reuses its siblings’ whole outcome, not what is below them', () => {
    const fork = prepareRerun(source(), { from: LEAVES[0]! });
    expect([...fork.reuse.keys()].sort()).toEqual(['.0-0.0-0.0-1', '.0-0.0-0.0-2']);
  });

  it('refuses a fork from no node of the run, or with a sibling that has no outcome', () => {
    expect(() => prepareRerun(source(), { from: 'other.0-0' })).toThrow(/not a node of run run-1/);
    expect(() => prepareRerun(source(), { from: `${ROOT}.0-7` })).toThrow(/has no such node/);
    const noThird = source({ entries: [call(LEAVES[2]!, 'h2', answer('three'))] });
    expect(() => prepareRerun(noThird, { from: LEAVES[1]! })).toThrow(
      expect.objectContaining({ code: 'invalid_argument', message: expect.stringContaining(`no outcome is recorded or retained of ${LEAVES[2]}`) as string }) as Error,
    );
    // A message that is not that node's outcome is not taken for it.
    const wrong = source({ outcomes: new Map([[LEAVES[0]!, outcome(LEAVES[1]!, 'two')]]), entries: [], nodes: LEAVES });
    expect(() => prepareRerun(wrong, { from: LEAVES[1]! })).toThrow(/no outcome is recorded or retained of/);
  });

  it('refuses an edit that is not one before anything else', () => {
    expect(() => prepareRerun(source(), { set: ['objective'] })).toThrow(/expected <path>=<value>/);
    expect(() => prepareRerun(source(), { set: ['objective.x=1'] })).toThrow(/objective is a string/);
  });
});
