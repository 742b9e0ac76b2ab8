import type { RunNode } from '../audit/run-tree-merge.js';
import { runNode } from '../testing/index.js';
import { describe, expect, it } from 'vitest';
import { finished, nodeEvents } from './run-events.js';

// A Fleet leaf still running, unless told otherwise.
const node = (id: string, overrides: Partial<RunNode> = {}): RunNode => runNode(id, { status: 'running', source: 'queue', queue_state: 'active', confidence: null, ...overrides });

describe('nodeEvents', () => {
  it('tells of each node once when it appears, and again only when it changes', () => {
    const seen = new Map<string, string>();
    const root = (leaf: RunNode) => node('r', { tier: 'PROGRESS_MONITOR', specialist: null, status: 'waiting_for_children', children: [leaf] });
    expect(nodeEvents(root(node('r.0')), seen).map((event) => event.id)).toEqual(['r', 'r.0']);
    expect(nodeEvents(root(node('r.0')), seen)).toEqual([]);
    const progressed = nodeEvents(root(node('r.0', { progress: { percent: 40, note: null, at: '2026-11-25T12:00:00.000Z' } })), seen);
    expect(progressed).toEqual([expect.objectContaining({ type: 'node', id: 'r.0', status: 'running', progress: expect.objectContaining({ percent: 40 }) as unknown })]);
  });

  it('tells of a run that starts to wait for a person, with its questions, and of each answer', () => {
    const seen = new Map<string, string>();
    const question = { id: 'r.0-0.out', question: 'Which region?', tier: 'SPECIALIZED_FLEET' as const, answer: null };
    const waiting = (answer: string | null) => node('r', { tier: 'PROGRESS_MONITOR', specialist: null, status: 'input_required', questions: [{ ...question, answer }] });
    expect(nodeEvents(waiting(null), seen)).toEqual([expect.objectContaining({ id: 'r', status: 'input_required', questions: [question] })]);
    expect(nodeEvents(waiting('eu-west'), seen)).toEqual([expect.objectContaining({ questions: [{ ...question, answer: 'eu-west' }] })]);
  });

  it('says a run is over once its root answered', () => {
    expect(finished(node('r', { source: 'outcome', status: 'success' }))).toBe(true);
    expect(finished(node('r'))).toBe(false);
  });
});
