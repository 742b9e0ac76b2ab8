import { describe, expect, it } from 'vitest';
import { nodeRecords, parseRecordEntries, waitsOf } from './node-record.js';
import { RECORD_FIELD, type DelegationEntry, type PassEntry, type RecordEntryInput } from './record-entry.js';

const pass = (started_at: number, ended_at: number, end: PassEntry['end'], queued_at: number | null = null): PassEntry => ({
  kind: 'pass',
  node: 'r.0-0',
  tier: 'ABSTRACT_ARCHITECT',
  started_at,
  ended_at,
  worker: 'host:1',
  attempt: 1,
  end,
  error: null,
  queued_at,
  calls_unrecorded: 0,
});

const raw = (entries: readonly unknown[]): [string, string[]][] => entries.map((entry, index) => [`${index}-0`, [RECORD_FIELD, typeof entry === 'string' ? entry : JSON.stringify(entry)]]);

describe('a node’s waits, from its passes', () => {
  it('is queued until its first pass, waits for its children after parking, and for a person after asking', () => {
    const passes = [pass(110, 120, 'parked', 100), pass(200, 210, 'asked'), pass(300, 305, 'answered')];
    expect(waitsOf(passes, null, true)).toEqual([
      { kind: 'queued', from: 100, to: 110 },
      { kind: 'children', from: 120, to: 200 },
      { kind: 'person', from: 210, to: 300 },
    ]);
  });

  it('leaves the wait open while the node has not answered, and counts a retry’s back-off', () => {
    expect(waitsOf([pass(10, 20, 'retrying', 5), pass(40, 50, 'parked')], null, false)).toEqual([
      { kind: 'queued', from: 5, to: 10 },
      { kind: 'retry', from: 20, to: 40 },
      { kind: 'children', from: 50, to: null },
    ]);
  });

  it('is queued from its delegation’s timestamp when no pass has begun', () => {
    const delegation: DelegationEntry = { kind: 'delegation', node: 'r.0-0', tier: 'x', at: 1, attempt: 1, message: { timestamp: new Date(1_000).toISOString() }, context: {}, edits: [] };
    expect(waitsOf([], delegation, false)).toEqual([{ kind: 'queued', from: 1_000, to: null }]);
  });
});

describe('a run’s recording, read back', () => {
  it('gathers entries by node, in order, and skips what does not parse', () => {
    const entries: RecordEntryInput[] = [
      { kind: 'delegation', node: 'r', tier: 'PROGRESS_MONITOR', at: 1, attempt: 1, message: { objective: 'x' } },
      pass(2, 3, 'parked', 1),
      { kind: 'outcome', node: 'r.0-0', tier: 'ABSTRACT_ARCHITECT', at: 5, message: { status: 'success' } },
      { ...pass(6, 7, 'answered'), node: 'r', tier: 'PROGRESS_MONITOR' },
      { kind: 'reused', node: 'r.0-0', tier: 'ABSTRACT_ARCHITECT', at: 5, from: 'o.0-0' },
    ];
    const { entries: parsed, skipped } = parseRecordEntries(raw([...entries, 'not json', { kind: 'pass', node: 'r' }, { kind: 'other' }]));
    expect(skipped).toBe(3);
    const nodes = nodeRecords(parsed);
    expect([...nodes.keys()]).toEqual(['r', 'r.0-0']);
    expect(nodes.get('r')).toMatchObject({ tier: 'PROGRESS_MONITOR', delegation: { attempt: 1, context: {}, edits: [] }, outcome: null, calls: [], reused_from: null });
    expect(nodes.get('r')!.passes.map((entry) => entry.end)).toEqual(['answered']);
    expect(nodes.get('r.0-0')).toMatchObject({ outcome: { message: { status: 'success' } }, reused_from: 'o.0-0' });
  });

  it('gives each delegation the context values its hashes name, recorded once for the run; an older inline value stays as it was', () => {
    const graph = { subtasks: [{ objective: 'a' }, { objective: 'b' }] };
    const leaf = (node: string, context: Record<string, unknown>): RecordEntryInput => ({ kind: 'delegation', node, tier: 'SPECIALIZED_FLEET', at: 2, attempt: 1, message: {}, context });
    const ref = 'beads:routing/r/task-graph';
    const { entries, skipped } = parseRecordEntries(
      raw([
        { kind: 'context', node: 'r.0-0.0-0.0-0', tier: 'SPECIALIZED_FLEET', at: 1, ref, sha256: 'aa', value: graph },
        leaf('r.0-0.0-0.0-0', { [ref]: { $context: 'aa' } }),
        leaf('r.0-0.0-0.1-0', { [ref]: { $context: 'aa' }, 'beads:gone': null }),
        leaf('r.0-0.0-0.2-0', { [ref]: { $context: 'bb' } }),
        leaf('r.0-0.0-0.3-0', { [ref]: graph, 'beads:odd': { $context: 'aa', more: 1 } }),
      ]),
    );
    expect(skipped).toBe(0);
    const nodes = nodeRecords(entries);
    // The context entry makes no node of its own.
    expect([...nodes.keys()]).toEqual(['r.0-0.0-0.0-0', 'r.0-0.0-0.1-0', 'r.0-0.0-0.2-0', 'r.0-0.0-0.3-0']);
    expect(nodes.get('r.0-0.0-0.0-0')!.delegation!.context).toEqual({ [ref]: graph });
    expect(nodes.get('r.0-0.0-0.1-0')!.delegation!.context).toEqual({ [ref]: graph, 'beads:gone': null });
    // A hash the recording has no value for (its entry lost): nothing known.
    expect(nodes.get('r.0-0.0-0.2-0')!.delegation!.context).toEqual({ [ref]: null });
    expect(nodes.get('r.0-0.0-0.3-0')!.delegation!.context).toEqual({ [ref]: graph, 'beads:odd': { $context: 'aa', more: 1 } });
  });

  it('reads a field other than its own as nothing', () => {
    expect(parseRecordEntries([['1-0', ['x', '{}']]]).skipped).toBe(1);
  });
});
