import type { OutcomeMessage, TierName } from '@tierflow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AUDIT_KINDS, type AuditRecord } from './audit-entry.js';
import { buildOutcome } from '../messages/messages.js';
import { digestAudit, mergeRunTree, type JobFacts, type RunNode } from './run-tree-merge.js';

const ROOT = 'r';
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
let clock = 0;

function record(fields: Partial<AuditRecord>): AuditRecord {
  clock += 1;
  return {
    stream_id: `${clock}-0`,
    time: new Date(T0 + clock * 1000).toISOString(),
    from: '',
    to: '',
    kind: 'delegation',
    direction: 'sent',
    id: '',
    correlation_id: '',
    status: '',
    confidence: null,
    by: '',
    attempt: null,
    detail: '',
    ...fields,
  };
}

const delegated = (id: string, to: TierName, taskType = 'general'): AuditRecord => record({ kind: 'delegation', direction: 'sent', id, to, detail: taskType });
const delivered = (id: string, to: TierName, attempt: number): AuditRecord => record({ kind: 'delegation', direction: 'received', id, to, attempt });
const answered = (id: string, direction: 'sent' | 'received', status: string, confidence = 0.9): AuditRecord =>
  record({ kind: 'outcome', direction, id: `${id}.out`, correlation_id: id, status, confidence });
const cancelled = (id: string): AuditRecord => record({ kind: 'cancellation', direction: 'sent', id: `${ROOT}.cancel`, correlation_id: id });

/** A root, an Architect, a Dispatcher and `leaves` Fleet children, each delegated, delivered once and answered success. */
function fullRun(leaves: number): AuditRecord[] {
  const records = [delivered(ROOT, 'PROGRESS_MONITOR', 1), delegated(`${ROOT}.0-0`, 'ABSTRACT_ARCHITECT', 'solve'), delivered(`${ROOT}.0-0`, 'ABSTRACT_ARCHITECT', 1)];
  const dispatcher = `${ROOT}.0-0.0-0`;
  records.push(delegated(dispatcher, 'ROUTING_DISPATCHER', 'decompose_and_solve'), delivered(dispatcher, 'ROUTING_DISPATCHER', 1));
  for (let index = 0; index < leaves; index++) records.push(delegated(`${dispatcher}.0-${index}`, 'SPECIALIZED_FLEET'));
  return records;
}

function job(fields: Partial<JobFacts> = {}): JobFacts {
  return { state: 'waiting', outcome: null, task_type: 'general', specialist_hint: null, attempts_made: 0, processed_on: null, finished_on: null, children: [], ...fields };
}

function outcomeOf(delegationId: string, status: OutcomeMessage['payload']['status'], confidence: number): OutcomeMessage {
  const draft = status === 'success' ? { status, summary: 'done', confidence } : { status, summary: 'not done', confidence, error_type: status, error_detail: status, recoverable: true };
  return buildOutcome('SPECIALIZED_FLEET', delegationId, draft, 5, T0);
}

function nodes(tree: RunNode | null): RunNode[] {
  const found: RunNode[] = [];
  const walk = (node: RunNode): void => {
    found.push(node);
    node.children.forEach(walk);
  };
  if (tree) walk(tree);
  return found;
}

const byId = (tree: RunNode | null, id: string): RunNode | undefined => nodes(tree).find((node) => node.id === id);
const leaf = (index: number): string => `${ROOT}.0-0.0-0.0-${index}`;

describe('mergeRunTree', () => {
  it('builds the whole tree from the audit trail alone, once no job is retained', () => {
    const records = [...fullRun(2), delivered(leaf(0), 'SPECIALIZED_FLEET', 1), delivered(leaf(0), 'SPECIALIZED_FLEET', 2), answered(leaf(0), 'sent', 'success', 0.8)];
    records.push(answered(leaf(0), 'received', 'success', 0.8), answered(leaf(1), 'received', 'timeout', 0));
    records.push(answered(`${ROOT}.0-0.0-0`, 'sent', 'partial', 0.4), answered(`${ROOT}.0-0`, 'sent', 'partial', 0.4), answered(ROOT, 'sent', 'partial', 0.4));
    const tree = mergeRunTree(ROOT, digestAudit(records), new Map());

    expect(nodes(tree).map((node) => [node.tier, node.id, node.task_type, node.status, node.source, node.confidence, node.attempts])).toEqual([
      ['PROGRESS_MONITOR', ROOT, 'objective', 'partial', 'outcome', 0.4, 1],
      ['ABSTRACT_ARCHITECT', `${ROOT}.0-0`, 'solve', 'partial', 'outcome', 0.4, 1],
      ['ROUTING_DISPATCHER', `${ROOT}.0-0.0-0`, 'decompose_and_solve', 'partial', 'outcome', 0.4, 1],
      ['SPECIALIZED_FLEET', leaf(0), 'general', 'success', 'outcome', 0.8, 2],
      ['SPECIALIZED_FLEET', leaf(1), 'general', 'timeout', 'parent', 0, 0],
    ]);
    expect(nodes(tree).every((node) => node.queue_state === null && node.specialist === null)).toBe(true);
    const first = byId(tree, leaf(0))!;
    // Started at its first delivery, finished when it sent its outcome.
    expect(first.started_at).toBe(records.find((entry) => entry.kind === 'delegation' && entry.direction === 'received' && entry.id === leaf(0))!.time);
    expect(first.finished_at).toBe(records.find((entry) => entry.kind === 'outcome' && entry.direction === 'sent' && entry.id === `${leaf(0)}.out`)!.time);
    expect(byId(tree, leaf(1))).toMatchObject({ started_at: null, finished_at: null });
  });

  it('shows a child its parent timed out and let go of, whose job still waits, as timeout from its parent', () => {
    const records = [...fullRun(1), cancelled(leaf(0)), answered(leaf(0), 'received', 'timeout', 0)];
    // The Dispatcher's dependencies no longer name the detached child.
    const jobs = new Map([
      [ROOT, job({ state: 'waiting-children', task_type: null, attempts_made: 0, processed_on: T0 })],
      [`${ROOT}.0-0`, job({ state: 'waiting-children', task_type: 'solve' })],
      [`${ROOT}.0-0.0-0`, job({ state: 'active', task_type: 'decompose_and_solve' })],
      [leaf(0), job({ state: 'waiting', specialist_hint: 'sim' })],
    ]);
    const tree = mergeRunTree(ROOT, digestAudit(records), jobs);
    expect(byId(tree, leaf(0))).toMatchObject({ status: 'timeout', source: 'parent', queue_state: 'waiting', confidence: 0, specialist: 'sim', attempts: 0 });
    expect(byId(tree, `${ROOT}.0-0.0-0`)).toMatchObject({ status: 'running', source: 'queue', attempts: 1 });
    // Started at its first delivery on the trail: a parent's job moves processedOn to its latest pass.
    const received = records.find((entry) => entry.kind === 'delegation' && entry.direction === 'received' && entry.id === ROOT)!.time;
    expect(tree).toMatchObject({ task_type: 'objective', status: 'waiting_for_children', started_at: received });
    expect(mergeRunTree(ROOT, digestAudit([]), jobs)?.started_at).toBe(new Date(T0).toISOString());
  });

  it('prefers the node’s own outcome, then what its parent recorded, then its queue state, then a cancellation', () => {
    const records = [...fullRun(6)];
    records.push(answered(leaf(0), 'received', 'timeout', 0), answered(leaf(1), 'sent', 'success', 0.7), answered(leaf(1), 'received', 'timeout', 0));
    records.push(answered(leaf(2), 'received', 'failed', 0), cancelled(leaf(3)), cancelled(leaf(4)));
    const jobs = new Map([
      // Finished after its parent gave up on it: its own outcome.
      [leaf(0), job({ state: 'completed', outcome: outcomeOf(leaf(0), 'success', 0.95), finished_on: T0 + 5000 })],
      [leaf(2), job({ state: 'failed', attempts_made: 3 })],
      [leaf(3), job({ state: 'delayed', attempts_made: 1 })],
    ]);
    const tree = mergeRunTree(ROOT, digestAudit(records), jobs);
    expect([0, 1, 2, 3, 4, 5].map((index) => byId(tree, leaf(index))).map((node) => [node?.status, node?.source, node?.queue_state])).toEqual([
      ['success', 'outcome', 'completed'],
      ['success', 'outcome', null],
      ['failed', 'parent', 'failed'],
      ['retrying', 'queue', 'delayed'],
      ['cancelled', 'cancellation', null],
      ['missing', 'none', null],
    ]);
    expect(byId(tree, leaf(0))).toMatchObject({ confidence: 0.95, finished_at: new Date(T0 + 5000).toISOString() });
    expect(byId(tree, leaf(2))!.attempts).toBe(3);
  });

  it("says where unfinished work is in the words users see, BullMQ's state only in queue_state", () => {
    const dispatcher = `${ROOT}.0-0.0-0`;
    const jobs = new Map([
      [ROOT, job({ state: 'waiting-children' })],
      [leaf(0), job({ state: 'prioritized' })],
      [leaf(1), job({ state: 'waiting' })],
      [leaf(2), job({ state: 'delayed', attempts_made: 1 })],
      [leaf(3), job({ state: 'active' })],
      [dispatcher, job({ state: 'waiting-children' })],
    ]);
    const tree = mergeRunTree(ROOT, digestAudit(fullRun(4)), jobs);
    expect([ROOT, dispatcher, leaf(0), leaf(1), leaf(2), leaf(3)].map((id) => byId(tree, id)).map((node) => [node?.status, node?.queue_state])).toEqual([
      ['waiting_for_children', 'waiting-children'],
      ['waiting_for_children', 'waiting-children'],
      ['queued', 'prioritized'],
      ['queued', 'waiting'],
      ['retrying', 'delayed'],
      ['running', 'active'],
    ]);
  });

  it('adds the children the queues know of and the trail does not, once each, in delegation order', () => {
    const records = [...fullRun(0), delegated(`${ROOT}.0-0.0-0.1-0`, 'SPECIALIZED_FLEET'), delegated(`${ROOT}.0-0.0-0.10-0`, 'SPECIALIZED_FLEET')];
    const dispatcher = `${ROOT}.0-0.0-0`;
    const jobs = new Map([[dispatcher, job({ state: 'waiting-children', children: [`${dispatcher}.10-0`, `${dispatcher}.2-0`, `${dispatcher}.0-0`] })]]);
    const tree = mergeRunTree(ROOT, digestAudit(records), jobs);
    expect(byId(tree, dispatcher)!.children.map((child) => child.id)).toEqual([`${dispatcher}.0-0`, `${dispatcher}.1-0`, `${dispatcher}.2-0`, `${dispatcher}.10-0`]);
  });

  it('marks a handoff its agent rejected: with the reason from its outcome, without once only the trail remembers it', () => {
    const records = [...fullRun(2), { ...answered(leaf(0), 'sent', 'failed', 0), detail: 'handoff_rejected' }, answered(leaf(1), 'sent', 'failed', 0)];
    const fromTrail = mergeRunTree(ROOT, digestAudit(records), new Map());
    expect(byId(fromTrail, leaf(0))).toMatchObject({ status: 'failed', rejection: { reason: null } });
    expect(byId(fromTrail, leaf(1))!.rejection).toBeUndefined();

    const rejected = buildOutcome(
      'SPECIALIZED_FLEET',
      leaf(0),
      { status: 'failed', summary: 'rejected by reviewer: reviews only', confidence: 0, error_type: 'handoff_rejected', error_detail: 'reviews only', recoverable: true },
      1,
      T0,
    );
    const withJob = mergeRunTree(ROOT, digestAudit(records), new Map([[leaf(0), job({ state: 'completed', outcome: rejected })]]));
    expect(byId(withJob, leaf(0))).toMatchObject({ status: 'failed', rejection: { reason: 'reviews only' } });
  });

  it('knows no root that neither the trail nor the queues know; a root known to either is a tree', () => {
    expect(mergeRunTree(ROOT, digestAudit([]), new Map())).toBeNull();
    expect(mergeRunTree(ROOT, digestAudit([]), new Map([[ROOT, job({ state: 'waiting', task_type: null })]]))).toMatchObject({ status: 'queued', source: 'queue', children: [] });
    expect(mergeRunTree(ROOT, digestAudit([delivered(ROOT, 'PROGRESS_MONITOR', 1)]), new Map())).toMatchObject({ status: 'missing', source: 'none', attempts: 1 });
  });

  it('skips malformed entries: a bad status, confidence, time, tier or id, and delegations out of place', () => {
    const records = [
      ...fullRun(1),
      answered(leaf(0), 'sent', 'splendid', 0.9),
      record({ kind: 'outcome', direction: 'sent', id: `${leaf(0)}.out`, status: 'success', confidence: Number.NaN }),
      record({ kind: 'outcome', direction: 'sent', id: `${leaf(0)}.out`, status: 'success', confidence: 1.5 }),
      record({ kind: 'outcome', direction: 'sent', id: leaf(0), status: 'success', confidence: 0.5 }),
      record({ kind: 'outcome', direction: 'received', id: `${leaf(0)}.out`, status: 'timeout', confidence: 0, time: 'yesterday' }),
      record({ kind: 'nonsense' as AuditRecord['kind'], id: leaf(0) }),
      record({ kind: 'delegation', direction: 'sideways' as AuditRecord['direction'], id: leaf(0) }),
      delegated(`${ROOT}.0-0.0-0.0-x`, 'SPECIALIZED_FLEET'),
      delegated(`${ROOT}.0-0.0-0.0-7`, 'CHIEF' as TierName),
      // A Fleet node directly under the root, and one under a parent no one delegated.
      delegated(`${ROOT}.5-0`, 'SPECIALIZED_FLEET'),
      delegated(`nobody.0-0`, 'ABSTRACT_ARCHITECT'),
    ];
    const tree = mergeRunTree(ROOT, digestAudit(records), new Map());
    expect(nodes(tree).map((node) => node.id)).toEqual([ROOT, `${ROOT}.0-0`, `${ROOT}.0-0.0-0`, leaf(0)]);
    // Only the received timeout is well formed; its unreadable time is left out.
    expect(byId(tree, leaf(0))).toMatchObject({ status: 'timeout', source: 'parent', confidence: 0 });
  });

  it('never throws on arbitrary trail entries and job facts', () => {
    const text = fc.oneof(fc.constantFrom('', ROOT, `${ROOT}.0-0`, leaf(0), `${leaf(0)}.out`, 'success', 'timeout', 'SPECIALIZED_FLEET', 'ABSTRACT_ARCHITECT'), fc.string());
    const entry = fc.record({
      stream_id: fc.string(),
      time: text,
      from: text,
      to: text,
      kind: fc.oneof(fc.constantFrom(...AUDIT_KINDS), fc.string()) as fc.Arbitrary<AuditRecord['kind']>,
      direction: fc.oneof(fc.constantFrom('sent', 'received'), fc.string()) as fc.Arbitrary<AuditRecord['direction']>,
      id: text,
      correlation_id: text,
      status: text,
      confidence: fc.option(fc.double()),
      by: text,
      attempt: fc.option(fc.double()),
      detail: text,
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 30 }), fc.array(fc.tuple(text, fc.string(), fc.array(text, { maxLength: 3 })), { maxLength: 5 }), (records, facts) => {
        const jobs = new Map(facts.map(([id, state, children]) => [id, job({ state, children })]));
        const tree = mergeRunTree(ROOT, digestAudit(records), jobs);
        expect(tree === null || tree.id === ROOT).toBe(true);
      }),
    );
  });
});
