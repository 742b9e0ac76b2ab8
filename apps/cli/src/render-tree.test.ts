import { digestAudit, mergeRunTree } from '@tierflow/runtime/admin';
import { type RunNode } from '@tierflow/runtime';
import { runNode } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { renderTree } from './render-tree.js';

const leaf = (index: number, overrides: Partial<RunNode>): RunNode => runNode(`r.0-0.0-0.0-${index}`, overrides);

describe('renderTree', () => {
  it('marks a status the node did not give itself with where it came from', () => {
    const dispatcher: RunNode = {
      ...leaf(0, {}),
      id: 'r.0-0.0-0',
      tier: 'ROUTING_DISPATCHER',
      task_type: 'decompose_and_solve',
      specialist: null,
      status: 'waiting_for_children',
      source: 'queue',
      queue_state: 'waiting-children',
      confidence: null,
      children: [
        leaf(0, { attempts: 2 }),
        leaf(1, { status: 'timeout', source: 'parent', queue_state: 'waiting', confidence: 0, attempts: 0 }),
        leaf(2, { status: 'failed', source: 'parent', queue_state: 'failed', confidence: 0 }),
        leaf(3, { specialist: null, status: 'timeout', source: 'parent', queue_state: null, confidence: 0 }),
        leaf(4, { specialist: null, status: 'cancelled', source: 'cancellation', queue_state: null, confidence: null }),
        leaf(5, { specialist: null, status: 'missing', source: 'none', queue_state: null, confidence: null, attempts: 0 }),
      ],
    };
    expect(renderTree(dispatcher).split('\n')).toEqual([
      'dispatcher  r.0-0.0-0  decompose_and_solve  waiting_for_children',
      '├─ fleet       r.0-0.0-0.0-0  general  sim  success  0.90  attempts 2',
      '├─ fleet       r.0-0.0-0.0-1  general  sim  timeout  0.00  (recorded by its parent; job still queued)',
      '├─ fleet       r.0-0.0-0.0-2  general  sim  failed  0.00  (recorded by its parent; job failed)',
      '├─ fleet       r.0-0.0-0.0-3  general  timeout  0.00  (recorded by its parent; no job retained)',
      '├─ fleet       r.0-0.0-0.0-4  general  cancelled  (cancellation sent; no job, no outcome on record)',
      '└─ fleet       r.0-0.0-0.0-5  general  missing  (delegation sent; no job, no outcome on record)',
      '',
    ]);
  });

  it('marks a fork’s node that answered with its original’s outcome', () => {
    expect(renderTree(leaf(1, { reused_from: 'o.0-0.0-0.0-1' }))).toBe('fleet       r.0-0.0-0.0-1  general  sim  success  0.90  (reused o.0-0.0-0.0-1)\n');
  });

  it("shows the confidence cascade's signal on the work a tier above flagged, held or rejected, and who checked it", () => {
    const flagged = leaf(1, { confidence: 0.6, cascade: { signal: 'low_confidence', confidence: 0.6, threshold: 0.5, checked_by: 'ROUTING_DISPATCHER' } });
    expect(renderTree(flagged)).toBe('fleet       r.0-0.0-0.0-1  general  sim  success  0.60  ⚠ low confidence (checked by dispatcher)\n');
    expect(renderTree(leaf(1, { cascade: { signal: 'needs_review', confidence: 0.4, threshold: 0.3, checked_by: 'ROUTING_DISPATCHER' } }))).toContain('◆ needs review (checked by dispatcher)');
    expect(renderTree(leaf(1, { cascade: { signal: 'rejected', confidence: 0.2, threshold: 0.3, checked_by: 'ROUTING_DISPATCHER' } }))).toContain('✖ rejected (checked by dispatcher)');
  });

  it('marks a handoff its agent rejected, with the reason when it is known', () => {
    expect(renderTree(leaf(1, { status: 'failed', confidence: 0, rejection: { reason: 'reviews only' } }))).toBe(
      'fleet       r.0-0.0-0.0-1  general  sim  failed  0.00  ✖ rejected by its agent: reviews only\n',
    );
    expect(renderTree(leaf(1, { status: 'failed', confidence: 0, rejection: { reason: null } }))).toContain('✖ rejected by its agent\n');
  });

  it("shows the words users see for unfinished work, BullMQ's states only when debugging", () => {
    const jobs = new Map([
      ['r', { state: 'waiting-children', outcome: null, task_type: 'objective', specialist_hint: null, attempts_made: 0, processed_on: null, finished_on: null, children: ['r.0-0'] }],
      ['r.0-0', { state: 'prioritized', outcome: null, task_type: 'solve', specialist_hint: null, attempts_made: 0, processed_on: null, finished_on: null, children: [] }],
    ]);
    const tree = mergeRunTree('r', digestAudit([]), jobs)!;
    expect(renderTree(tree).split('\n')).toEqual(['monitor     r  objective  waiting_for_children', '└─ architect   r.0-0  solve  queued', '']);
    expect(renderTree(tree, undefined, { debug: true }).split('\n')).toEqual([
      'monitor     r  objective  waiting_for_children  [queue: waiting-children]',
      '└─ architect   r.0-0  solve  queued  [queue: prioritized]',
      '',
    ]);
  });

  it('shows what a node’s model calls used, its subtree’s included', () => {
    const usage = { tokens_in: 2_000, tokens_out: 410, cost_usd: 0.0042, llm_calls: 3 };
    expect(renderTree(leaf(0, { specialist: 'python-lora', usage }))).toBe('fleet       r.0-0.0-0.0-0  general  python-lora  success  0.90  3 calls  2,410 tokens  $0.0042\n');
    expect(renderTree(leaf(0, { usage: { ...usage, cost_usd: 0, llm_calls: 1 } }))).toContain('0.90  1 call  2,410 tokens\n');
  });

  it('lists the questions of a run that waits for a person, with their answers and how to answer', () => {
    const root: RunNode = {
      ...runNode('r', { tier: 'PROGRESS_MONITOR', task_type: 'root', specialist: null, status: 'input_required', source: 'queue', queue_state: 'delayed', confidence: null }),
      questions: [
        { id: 'r.0-0.0-0.0-0.out', question: 'Which region?', tier: 'SPECIALIZED_FLEET', answer: 'eu-west' },
        { id: 'r.0-0.0-0.0-1.out', question: 'Which year?', tier: 'SPECIALIZED_FLEET', answer: null },
      ],
      waiting_until: '2026-11-26T10:00:00.000Z',
    };
    expect(renderTree(root).split('\n').slice(1)).toEqual([
      'waits for answers until 2026-11-26T10:00:00.000Z:',
      '  r.0-0.0-0.0-0.out  (asked by fleet)  Which region?',
      '    answered: eu-west',
      '  r.0-0.0-0.0-1.out  (asked by fleet)  Which year?',
      'answer with: tierflow answer r "<text>" [--to <question id>]',
      '',
    ]);
  });

  it('lists the blockers of a run that waits on blocked work, with their notes and how to unblock', () => {
    const root: RunNode = {
      ...runNode('r', { tier: 'PROGRESS_MONITOR', task_type: 'root', specialist: null, status: 'blocked', source: 'queue', queue_state: 'delayed', confidence: null }),
      blockers: [{ id: 'r.0-0.0-0.0-0.out', blocker: 'Waiting for the API key', tier: 'SPECIALIZED_FLEET', unblocked: null }],
      blocked_since: '2026-11-25T10:00:00.000Z',
      waiting_until: '2026-11-26T10:00:00.000Z',
    };
    expect(renderTree(root).split('\n').slice(1)).toEqual([
      'blocked since 2026-11-25T10:00:00.000Z, waits until 2026-11-26T10:00:00.000Z:',
      '  r.0-0.0-0.0-0.out  (reported by fleet)  Waiting for the API key',
      'unblock with: tierflow unblock r [--note "<text>"]',
      '',
    ]);
  });
});
